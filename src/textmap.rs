//! Rewriting object names quoted in free text (issues, wikis, release
//! notes) to their names in the other hash (SOURCE's SHA-1 names to DEST's
//! SHA-256 ones, or, after a conversion from SHA-256, the other way),
//! streaming and byte-preserving.
//!
//! A candidate is a whole word (a maximal run of `[0-9A-Za-z_]`; any other
//! byte, every non-ASCII byte included, is a boundary) of 7 to 40 hex
//! digits (64 for SHA-256 names) in one case. Everything that is not a
//! replaced candidate is copied byte for byte, so text in any encoding
//! passes through unchanged. The state carried from one read to the next
//! is at most one full name,
//! which is how a name split across two reads is still found and memory
//! stays bounded. This module knows nothing about SQLite: names are looked
//! up through [`NameLookup`].

use std::io::{self, Read, Write};

use crate::hash::{HashKind, ObjectId};

/// Shortest abbreviation rewritten: git's default `core.abbrev`.
pub const MIN_TEXT_ABBREV: usize = 7;

/// The answer for one quoted name or abbreviation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// It names exactly one commit or tag; this is its other name.
    Found(ObjectId),
    Unknown,
    Ambiguous,
}

/// Where names come from (the map database, or a table in tests).
pub trait NameLookup {
    /// The hash of the names quoted in the text.
    fn quoted(&self) -> HashKind;
    /// `hex`: 7 to [`NameLookup::quoted`]'s full length of lower-case hex
    /// digits.
    fn lookup(&mut self, hex: &[u8]) -> Result<Lookup, BoxError>;
    /// The shortest abbreviation of `id` (an answer of
    /// [`NameLookup::lookup`]), at least `at_least` digits, that is
    /// unambiguous among the names of its hash.
    fn unique_len(&mut self, id: &ObjectId, at_least: usize) -> Result<usize, BoxError>;
}

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug, Clone, Copy, Default)]
pub struct RewriteOptions {
    /// Abbreviate rewritten abbreviations to this many digits (at least, and
    /// longer where that would be ambiguous) instead of their own length.
    pub abbrev: Option<usize>,
}

/// What a rewrite did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RewriteCounts {
    pub replaced: u64,
    pub unknown: u64,
    pub ambiguous: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum RewriteError {
    #[error("reading the text")]
    Read(#[source] io::Error),
    #[error("writing the text")]
    Write(#[source] io::Error),
    #[error("looking up {name}")]
    Lookup {
        name: String,
        #[source]
        source: BoxError,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// The previous byte was not a word byte (or nothing was read yet).
    Between,
    /// Inside a word that may still be a name; its bytes are in `word`.
    Candidate,
    /// Inside a word that cannot be a name; copying until it ends.
    Passthrough,
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Copies `input` to `output`, replacing known names; see the module doc
/// for what counts as a name.
pub fn rewrite_text(
    mut input: impl Read,
    mut output: impl Write,
    names: &mut dyn NameLookup,
    opts: RewriteOptions,
) -> Result<RewriteCounts, RewriteError> {
    let mut rewriter = Rewriter {
        longest: names.quoted().hex_len(),
        names,
        opts,
        counts: RewriteCounts::default(),
        state: State::Between,
        word: [0; 64],
        word_len: 0,
        lower: false,
        upper: false,
        out: Vec::with_capacity(CHUNK + 128),
    };
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(RewriteError::Read(e)),
        };
        for &b in &buf[..n] {
            rewriter.byte(b)?;
        }
        output
            .write_all(&rewriter.out)
            .map_err(RewriteError::Write)?;
        rewriter.out.clear();
    }
    if rewriter.state == State::Candidate {
        rewriter.finish_word()?;
    }
    output
        .write_all(&rewriter.out)
        .map_err(RewriteError::Write)?;
    output.flush().map_err(RewriteError::Write)?;
    Ok(rewriter.counts)
}

const CHUNK: usize = 64 * 1024;

struct Rewriter<'n> {
    names: &'n mut dyn NameLookup,
    opts: RewriteOptions,
    counts: RewriteCounts,
    state: State,
    /// Digits of a full quoted name.
    longest: usize,
    word: [u8; 64],
    word_len: usize,
    lower: bool,
    upper: bool,
    out: Vec<u8>,
}

impl Rewriter<'_> {
    fn byte(&mut self, b: u8) -> Result<(), RewriteError> {
        match self.state {
            State::Between => {
                if b.is_ascii_hexdigit() {
                    self.word_len = 0;
                    self.lower = false;
                    self.upper = false;
                    self.push_digit(b);
                    self.state = State::Candidate;
                } else {
                    self.out.push(b);
                    if is_word(b) {
                        self.state = State::Passthrough;
                    }
                }
            }
            State::Candidate => {
                if !is_word(b) {
                    self.finish_word()?;
                    self.out.push(b);
                    self.state = State::Between;
                } else if b.is_ascii_hexdigit() && self.word_len < self.longest && self.same_case(b)
                {
                    self.push_digit(b);
                } else {
                    // A longer word, a non-hex letter or mixed case: not a name.
                    self.out.extend_from_slice(&self.word[..self.word_len]);
                    self.out.push(b);
                    self.state = State::Passthrough;
                }
            }
            State::Passthrough => {
                self.out.push(b);
                if !is_word(b) {
                    self.state = State::Between;
                }
            }
        }
        Ok(())
    }

    fn same_case(&self, b: u8) -> bool {
        !(b.is_ascii_lowercase() && self.upper || b.is_ascii_uppercase() && self.lower)
    }

    fn push_digit(&mut self, b: u8) {
        self.lower |= b.is_ascii_lowercase();
        self.upper |= b.is_ascii_uppercase();
        self.word[self.word_len] = b;
        self.word_len += 1;
    }

    /// The candidate word ended: write it, or its replacement.
    fn finish_word(&mut self) -> Result<(), RewriteError> {
        let len = self.word_len;
        if len < MIN_TEXT_ABBREV {
            self.out.extend_from_slice(&self.word[..len]);
            return Ok(());
        }
        let mut lower = self.word;
        lower[..len].make_ascii_lowercase();
        let failed = |source| RewriteError::Lookup {
            name: String::from_utf8_lossy(&lower[..len]).into_owned(),
            source,
        };
        match self.names.lookup(&lower[..len]).map_err(failed)? {
            Lookup::Found(other) => {
                let out_len = if len == self.longest {
                    other.kind().hex_len()
                } else {
                    let want = self.opts.abbrev.unwrap_or(len);
                    self.names.unique_len(&other, want).map_err(failed)?
                };
                let start = self.out.len();
                other.write_hex(&mut self.out);
                self.out.truncate(start + out_len);
                if self.upper {
                    self.out[start..].make_ascii_uppercase();
                }
                self.counts.replaced += 1;
            }
            Lookup::Unknown => {
                self.out.extend_from_slice(&self.word[..len]);
                self.counts.unknown += 1;
            }
            Lookup::Ambiguous => {
                self.out.extend_from_slice(&self.word[..len]);
                self.counts.ambiguous += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// sha1 hex -> sha256, resolved by prefix like the map does.
    struct Table(BTreeMap<String, ObjectId>);

    impl NameLookup for Table {
        fn quoted(&self) -> HashKind {
            HashKind::Sha1
        }
        fn lookup(&mut self, hex: &[u8]) -> Result<Lookup, BoxError> {
            let hex = std::str::from_utf8(hex).unwrap();
            let mut hits = self.0.iter().filter(|(k, _)| k.starts_with(hex));
            Ok(match (hits.next(), hits.next()) {
                (Some((_, v)), None) => Lookup::Found(*v),
                (None, _) => Lookup::Unknown,
                _ => Lookup::Ambiguous,
            })
        }
        fn unique_len(&mut self, _: &ObjectId, at_least: usize) -> Result<usize, BoxError> {
            Ok(at_least)
        }
    }

    fn table() -> Table {
        let mut t = BTreeMap::new();
        let sha256 = |c: u8| ObjectId::from_raw(HashKind::Sha256, &[c; 32]).unwrap();
        t.insert("a1".repeat(20), sha256(0x11));
        t.insert(format!("b2b2b2b{}", "0".repeat(33)), sha256(0x22));
        t.insert(format!("b2b2b2b{}", "1".repeat(33)), sha256(0x33));
        Table(t)
    }

    fn run(input: &[u8], chunked: bool) -> (Vec<u8>, RewriteCounts) {
        struct OneByte<'a>(&'a [u8]);
        impl Read for OneByte<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(1).min(buf.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut out = Vec::new();
        let counts = if chunked {
            rewrite_text(OneByte(input), &mut out, &mut table(), Default::default())
        } else {
            rewrite_text(input, &mut out, &mut table(), Default::default())
        }
        .unwrap();
        (out, counts)
    }

    #[test]
    fn replaces_whole_words_only_and_keeps_other_bytes() {
        let full = "a1".repeat(20);
        let input = format!(
            "fix {full}, see a1a1a1a (x{full}) A1A1A1A1 é{full}é b2b2b2b deadbee a1a1a1 a1a1a1a_ A1a1A1a\r\n"
        );
        let mut bytes = input.into_bytes();
        bytes.push(0xfe);
        let (out, counts) = run(&bytes, false);
        let s256 = "11".repeat(32);
        let expected = format!(
            "fix {s256}, see 1111111 (x{full}) 11111111 é{s256}é b2b2b2b deadbee a1a1a1 a1a1a1a_ A1a1A1a\r\n"
        );
        let mut expected = expected.into_bytes();
        expected.push(0xfe);
        assert_eq!(
            String::from_utf8_lossy(&out),
            String::from_utf8_lossy(&expected)
        );
        assert_eq!(out, expected);
        assert_eq!(
            counts,
            RewriteCounts {
                replaced: 4,
                unknown: 1,
                ambiguous: 1
            }
        );
    }

    #[test]
    fn names_split_across_reads_are_found() {
        let full = "a1".repeat(20);
        let input = format!("{full}\n{full}");
        let (whole, c1) = run(input.as_bytes(), false);
        let (bytewise, c2) = run(input.as_bytes(), true);
        assert_eq!(whole, bytewise);
        assert_eq!(c1, c2);
        assert_eq!(c1.replaced, 2);
    }

    /// After a conversion from SHA-256, quoted SHA-256 names become SHA-1
    /// names: 64 digits are a full name, an abbreviation keeps its length.
    #[test]
    fn sha256_names_become_sha1_names() {
        struct Back;
        impl NameLookup for Back {
            fn quoted(&self) -> HashKind {
                HashKind::Sha256
            }
            fn lookup(&mut self, hex: &[u8]) -> Result<Lookup, BoxError> {
                Ok(
                    match "c3".repeat(32).starts_with(std::str::from_utf8(hex)?) {
                        true => Lookup::Found(ObjectId::Sha1([0x44; 20])),
                        false => Lookup::Unknown,
                    },
                )
            }
            fn unique_len(&mut self, id: &ObjectId, at_least: usize) -> Result<usize, BoxError> {
                assert_eq!(id.kind(), HashKind::Sha1);
                Ok(at_least)
            }
        }
        let input = format!(
            "in {} and c3c3c3c3c3, not {}f\n",
            "c3".repeat(32),
            "c3".repeat(32)
        );
        let mut out = Vec::new();
        let counts =
            rewrite_text(input.as_bytes(), &mut out, &mut Back, Default::default()).unwrap();
        let expected = format!(
            "in {} and 4444444444, not {}f\n",
            "44".repeat(20),
            "c3".repeat(32)
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        assert_eq!(counts.replaced, 2);
    }

    #[test]
    fn a_41_digit_word_is_not_a_name() {
        let word = format!("{}a", "a1".repeat(20));
        let (out, counts) = run(word.as_bytes(), false);
        assert_eq!(out, word.as_bytes());
        assert_eq!(counts, RewriteCounts::default());
    }
}
