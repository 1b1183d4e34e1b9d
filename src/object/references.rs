//! The ids an object references structurally (docs/translation.md), found
//! without rewriting anything: used to schedule translation in dependency
//! order and to find missing objects before translating.
//!
//! The parsers accept and refuse exactly what `translate` does (git's
//! `object-file-convert.c`), so an object that passes here can only fail
//! translation for an unmapped id or, under `--strict-headers`, an unknown
//! commit header.

use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;

/// Why an id was referenced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceRole {
    /// A tree entry; `gitlink` when its mode is a submodule commit (160000).
    TreeEntry {
        gitlink: bool,
    },
    CommitTree,
    Parent,
    /// The `object` line of a tag embedded in a commit's `mergetag` field.
    /// Its id may be of either hash: a mergetag whose tagged object the
    /// repository lacks can only be kept verbatim, old name and all
    /// (`--unmapped-mergetags=verbatim`, docs/translation.md).
    MergetagObject,
    TagObject,
}

/// An object body that translation would refuse as malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReferencesError {
    #[error("failed to decode tree entry at offset {offset}: {reason}")]
    MalformedTree { offset: usize, reason: &'static str },
    #[error("bad commit: {reason}")]
    MalformedCommit { reason: String },
    #[error("bogus tag object: {reason}")]
    MalformedTag { reason: String },
}

/// One tree entry, borrowed from the tree body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeEntry<'a> {
    /// The mode digits exactly as stored (`100644`, `40000`, `040000`, ...).
    pub mode: &'a [u8],
    pub name: &'a [u8],
    /// `mode SP name NUL`, the bytes before the id exactly as stored (one
    /// copy for a translator, where mode and name would be four).
    pub head: &'a [u8],
    pub id: ObjectId,
}

impl TreeEntry<'_> {
    /// True for a submodule commit: git's `S_ISGITLINK` on the mode.
    pub fn is_gitlink(&self) -> bool {
        super::TreeMode::parse(self.mode).is_gitlink()
    }
}

/// Iterates over the entries of a tree body (git's `decode_tree_entry_raw`).
/// Stops after the first error.
pub fn tree_entries(body: &[u8], hash: HashKind) -> TreeEntries<'_> {
    TreeEntries { body, pos: 0, hash }
}

/// The first NUL in `bytes`, eight bytes at a time: names are most of a
/// tree's bytes, and every entry of every tree is scanned for one (by the
/// scan, the translation and the output deltas).
#[inline]
pub fn find_nul(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(word) = bytes.get(at..at + 8) {
        let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        // The lowest flagged byte is the first zero (a borrow can only
        // flag bytes above it).
        let zero = w.wrapping_sub(ONES) & !w & HIGHS;
        if zero != 0 {
            return Some(at + (zero.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    bytes[at..].iter().position(|&b| b == 0).map(|i| at + i)
}

/// Iterator returned by [`tree_entries`].
#[derive(Debug, Clone)]
pub struct TreeEntries<'a> {
    body: &'a [u8],
    pos: usize,
    hash: HashKind,
}

impl<'a> TreeEntries<'a> {
    fn decode(&self) -> Result<(TreeEntry<'a>, usize), &'static str> {
        let rest = &self.body[self.pos..];
        let raw_len = self.hash.raw_len();
        // git's guard: the byte just before the last `rawsz` bytes of what is
        // left must be NUL. It also bounds every scan below.
        if rest.len() < raw_len + 3 {
            return Err("truncated entry");
        }
        if rest[rest.len() - raw_len - 1] != 0 {
            return Err("no NUL before the final object id");
        }
        let sp = rest
            .iter()
            .position(|&b| !(b'0'..=b'7').contains(&b))
            .ok_or("truncated entry")?;
        if sp == 0 {
            return Err("empty mode");
        }
        if rest[sp] != b' ' {
            return Err("mode is not octal");
        }
        let nul = find_nul(&rest[sp + 1..])
            .map(|i| sp + 1 + i)
            .ok_or("unterminated name")?;
        if nul == sp + 1 {
            return Err("empty name");
        }
        let end = nul + 1 + raw_len;
        let id = rest
            .get(nul + 1..end)
            .and_then(|raw| ObjectId::from_raw(self.hash, raw))
            .ok_or("truncated object id")?;
        let entry = TreeEntry {
            mode: &rest[..sp],
            name: &rest[sp + 1..nul],
            head: &rest[..=nul],
            id,
        };
        Ok((entry, end))
    }
}

impl<'a> Iterator for TreeEntries<'a> {
    type Item = Result<TreeEntry<'a>, ReferencesError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.body.len() {
            return None;
        }
        match self.decode() {
            Ok((entry, len)) => {
                self.pos += len;
                Some(Ok(entry))
            }
            Err(reason) => {
                let offset = self.pos;
                self.pos = self.body.len();
                Some(Err(ReferencesError::MalformedTree { offset, reason }))
            }
        }
    }
}

/// Calls `f(id, role)` for every structural reference in `body`, in order.
pub fn for_each_reference(
    kind: ObjectKind,
    body: &[u8],
    hash: HashKind,
    mut f: impl FnMut(ObjectId, ReferenceRole),
) -> Result<(), ReferencesError> {
    match kind {
        ObjectKind::Blob => Ok(()),
        ObjectKind::Tree => tree_entries(body, hash).try_for_each(|entry| {
            let entry = entry?;
            let gitlink = entry.is_gitlink();
            f(entry.id, ReferenceRole::TreeEntry { gitlink });
            Ok(())
        }),
        ObjectKind::Commit => commit_references(body, hash, &mut f),
        ObjectKind::Tag => {
            // git requires the LF: a tag cannot end on its object line.
            let line_len = 7 + hash.hex_len();
            let id = (body.get(line_len) == Some(&b'\n'))
                .then(|| object_line(&body[..line_len], hash))
                .flatten()
                .ok_or_else(|| ReferencesError::MalformedTag {
                    reason: "first line is not \"object <id>\"".into(),
                })?;
            f(id, ReferenceRole::TagObject);
            Ok(())
        }
    }
}

/// Parses a line (without LF) that is exactly `object <hex>`.
fn object_line(line: &[u8], hash: HashKind) -> Option<ObjectId> {
    let hex = line.strip_prefix(b"object ")?;
    ObjectId::from_hex(hash, hex)
}

/// The id of a mergetag's first line (without LF), `object <hex>`: of
/// `hash`, or of the other hash when the field was kept verbatim from a
/// repository of that hash.
pub fn mergetag_object_line(line: &[u8], hash: HashKind) -> Option<ObjectId> {
    object_line(line, hash).or_else(|| object_line(line, hash.other()))
}

/// Walks the commit header like git's `convert_commit_object`.
fn commit_references(
    body: &[u8],
    hash: HashKind,
    f: &mut impl FnMut(ObjectId, ReferenceRole),
) -> Result<(), ReferencesError> {
    let bad = |reason: &str| ReferencesError::MalformedCommit {
        reason: reason.into(),
    };
    let mut pos = 0;
    while pos < body.len() && body[pos] != b'\n' {
        let eol = lf_from(body, pos).ok_or_else(|| bad("header line without LF"))?;
        let (start, line) = (pos, &body[pos..eol]);
        pos = eol + 1;
        if line[0] == b' ' {
            // A continuation line belongs to the preceding field, if any.
            if start == 0 {
                return Err(bad("continuation line without a header field"));
            }
            continue;
        }
        let name = line.split(|&b| b == b' ').next().unwrap_or(line);
        let value = line.get(name.len() + 1..).unwrap_or_default();
        let line_id = |role: ReferenceRole, what: &str| {
            ObjectId::from_hex(hash, value)
                .map(|id| (id, role))
                .ok_or_else(|| bad(what))
        };
        let (id, role) = match name {
            b"tree" => line_id(ReferenceRole::CommitTree, "bad tree line")?,
            b"parent" => line_id(ReferenceRole::Parent, "bad parent line")?,
            // The object line is always complete on the first mergetag line:
            // hex digits cannot span a fold.
            b"mergetag" => mergetag_object_line(value, hash)
                .map(|id| (id, ReferenceRole::MergetagObject))
                .ok_or_else(|| bad("mergetag: bogus tag object"))?,
            _ => continue,
        };
        f(id, role);
    }
    Ok(())
}

/// Index of the first LF at or after `from`.
fn lf_from(body: &[u8], from: usize) -> Option<usize> {
    Some(from + body[from..].iter().position(|&b| b == b'\n')?)
}

#[cfg(test)]
mod tests {
    use super::ReferenceRole::{CommitTree, MergetagObject, Parent, TagObject};
    use super::*;

    #[test]
    fn find_nul_agrees_with_a_byte_scan() {
        // Every length up to 40 and NUL position, with neighbours that trip
        // word-at-a-time tricks: 0x01 after the NUL (a borrow), 0x80 and
        // 0xFF before it.
        for len in 0..40 {
            for nul in (0..len).map(Some).chain([None]) {
                for fill in [b'a', 0x01, 0x80, 0xFF] {
                    let mut bytes = vec![fill; len];
                    if let Some(n) = nul {
                        bytes[n] = 0;
                        if n + 1 < len {
                            bytes[n + 1] = 0x01;
                        }
                    }
                    let naive = bytes.iter().position(|&b| b == 0);
                    assert_eq!(find_nul(&bytes), naive, "{bytes:?}");
                }
            }
        }
    }

    fn refs(kind: ObjectKind, body: &[u8]) -> Result<Vec<(u8, ReferenceRole)>, ReferencesError> {
        let mut seen = Vec::new();
        let mut record = |id: ObjectId, r| seen.push((id.as_bytes()[0], r));
        for_each_reference(kind, body, HashKind::Sha1, &mut record)?;
        Ok(seen)
    }

    fn tree_error_at(body: &[u8]) -> usize {
        match refs(ObjectKind::Tree, body) {
            Err(ReferencesError::MalformedTree { offset, .. }) => offset,
            other => panic!("{other:?}"),
        }
    }

    fn e(mode: &str, name: &str, n: u8) -> Vec<u8> {
        [format!("{mode} {name}\0").as_bytes(), &[n; 20]].concat()
    }

    #[test]
    fn tree_entries_and_gitlinks() {
        let body = [
            e("100644", "a", 1),
            e("160000", "s", 2),
            e("040000", "d", 3),
        ];
        let body = body.concat();
        let entries: Vec<_> = tree_entries(&body, HashKind::Sha1).flatten().collect();
        assert_eq!(entries[1].name, b"s");
        assert_eq!(entries[2].mode, b"040000");
        let plain = ReferenceRole::TreeEntry { gitlink: false };
        let gitlink = ReferenceRole::TreeEntry { gitlink: true };
        let got = refs(ObjectKind::Tree, &body).unwrap();
        assert_eq!(got, [(1, plain), (2, gitlink), (3, plain)]);
        // git checks the byte before the last id of the *remaining* buffer,
        // so trailing junk is refused at the first entry, and only once.
        let bad = [&body[..], b"x"].concat();
        assert_eq!(tree_entries(&bad, HashKind::Sha1).count(), 1);
        assert_eq!(tree_error_at(&bad), 0);
        // Junk that ends like an entry is caught where it starts.
        let junk_entry = [&body[..], b"x", &e("1", "y", 4)].concat();
        assert_eq!(tree_error_at(&junk_entry), body.len());
        let truncated = e("1", "a", 1)[1..].to_vec();
        for broken in [e("", "a", 1), e("1x", "a", 1), e("1", "", 1), truncated] {
            assert_eq!(tree_error_at(&broken), 0);
        }
    }

    #[test]
    fn commit_and_tag_references() {
        let [t, p, m, q, x, o, y] = [1, 2, 3, 4, 5, 6, 7].map(|n| ObjectId::Sha1([n; 20]).to_hex());
        let commit = format!(
            "tree {t}\nparent {p}\nauthor A\nmergetag object {m}\n type tag\n \n msg\n\
             x-field 1\n cont\nparent {q}\n\ntree {x}\n"
        );
        let (ids, roles): (Vec<_>, Vec<_>) = refs(ObjectKind::Commit, commit.as_bytes())
            .unwrap()
            .into_iter()
            .unzip();
        assert_eq!(ids, [1, 2, 3, 4]);
        assert_eq!(roles, [CommitTree, Parent, MergetagObject, Parent]);
        // A mergetag kept verbatim from the other hash names its id in that hash.
        let long = ObjectId::Sha256([8; 32]);
        let kept = format!(
            "tree {t}\nmergetag object {}\n type commit\n",
            long.to_hex()
        );
        let mut seen = Vec::new();
        for_each_reference(
            ObjectKind::Commit,
            kept.as_bytes(),
            HashKind::Sha1,
            |id, r| seen.push((id, r)),
        )
        .unwrap();
        assert_eq!(seen[1], (long, MergetagObject));
        let tag = format!("object {o}\ntype commit\n\nobject {y}\n");
        assert_eq!(
            refs(ObjectKind::Tag, tag.as_bytes()),
            Ok(vec![(6, TagObject)])
        );
        assert_eq!(refs(ObjectKind::Blob, b"tree 123\n"), Ok(vec![]));
    }
}
