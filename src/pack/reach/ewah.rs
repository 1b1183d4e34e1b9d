//! EWAH, the run-length compressed bitmap of git's `.bitmap` files (the
//! JavaEWAH layout; gitformat-bitmap(5), "Appendix A"): chunks of one
//! marker word (bit 0: the bit of a run, bits 1-32: how many 64-bit words
//! the run spans, bits 33-63: how many literal words follow) and the
//! literal words. Serialized big-endian: the size in bits, the number of
//! words, the words, and the position of the last marker word.
//!
//! Only what a writer needs: compressing a dense bitset, and OR-ing a
//! compressed bitmap into a dense one (bitmaps of selected ancestors are
//! kept compressed while the rest are built).

use std::io::{self, Write};

/// Largest run a marker word counts, in words.
const MAX_RUN: u64 = u32::MAX as u64;
/// Largest number of literal words a marker word announces.
const MAX_LITERALS: u64 = (1 << 31) - 1;

/// A bitmap in EWAH form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ewah {
    /// Size in bits (a multiple of 64: trailing zero words are dropped).
    bits: u32,
    words: Vec<u64>,
    /// Position of the last marker word in `words`.
    last_marker: u32,
}

fn marker(run_bit: bool, run: u64, literals: u64) -> u64 {
    u64::from(run_bit) | (run << 1) | (literals << 33)
}

impl Ewah {
    /// Compresses a dense bitset (bit `i` is bit `i % 64` of word `i / 64`).
    pub fn from_words(dense: &[u64]) -> Self {
        // Trailing zero words carry nothing; at least one word is kept so
        // the bitmap is never empty (as git's writer does).
        let used = dense.iter().rposition(|&w| w != 0).map_or(1, |p| p + 1);
        let dense = if dense.is_empty() {
            &[0u64][..]
        } else {
            &dense[..used]
        };
        let mut words = Vec::new();
        let mut last_marker = 0u32;
        let mut k = 0usize;
        while k < dense.len() {
            // A run of clean words (all zeros or all ones), then literals.
            let run_bit = dense[k] == u64::MAX;
            let mut run = 0u64;
            while k < dense.len() && run < MAX_RUN && is_clean(dense[k], run_bit) {
                run += 1;
                k += 1;
            }
            let start = k;
            while k < dense.len()
                && ((k - start) as u64) < MAX_LITERALS
                && !(dense[k] == 0 || dense[k] == u64::MAX)
            {
                k += 1;
            }
            last_marker = u32::try_from(words.len()).expect("bitmaps fit in 2^32 words");
            words.push(marker(run_bit, run, (k - start) as u64));
            words.extend_from_slice(&dense[start..k]);
        }
        Ewah {
            bits: u32::try_from(dense.len() * 64).expect("bitmaps have at most 2^32 bits"),
            words,
            last_marker,
        }
    }

    /// Sets in `dense` every bit set here.
    pub fn or_into(&self, dense: &mut [u64]) {
        let mut at = 0usize;
        let mut k = 0usize;
        while k < self.words.len() {
            let m = self.words[k];
            let run = ((m >> 1) & MAX_RUN) as usize;
            let literals = (m >> 33) as usize;
            if m & 1 == 1 {
                for w in &mut dense[at..at + run] {
                    *w = u64::MAX;
                }
            }
            at += run;
            for (w, &lit) in dense[at..at + literals]
                .iter_mut()
                .zip(&self.words[k + 1..k + 1 + literals])
            {
                *w |= lit;
            }
            at += literals;
            k += 1 + literals;
        }
    }

    /// Size of the compressed form, in words.
    pub fn compressed_words(&self) -> usize {
        self.words.len()
    }

    /// Writes the serialized form to `out`.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(&self.bits.to_be_bytes())?;
        let count = u32::try_from(self.words.len()).expect("bitmaps fit in 2^32 words");
        out.write_all(&count.to_be_bytes())?;
        for w in &self.words {
            out.write_all(&w.to_be_bytes())?;
        }
        out.write_all(&self.last_marker.to_be_bytes())
    }

    /// Words of the dense form.
    #[cfg(test)]
    pub fn dense_words(&self) -> usize {
        self.bits as usize / 64
    }
}

fn is_clean(word: u64, run_bit: bool) -> bool {
    word == if run_bit { u64::MAX } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(dense: &[u64]) {
        let ewah = Ewah::from_words(dense);
        let mut back = vec![0u64; dense.len().max(1)];
        ewah.or_into(&mut back);
        assert_eq!(&back[..dense.len()], dense);
        assert!(ewah.dense_words() <= dense.len().max(1));
    }

    #[test]
    fn runs_and_literals_come_back() {
        round_trip(&[]);
        round_trip(&[0]);
        round_trip(&[5]);
        round_trip(&[0, 0, 0, 7, u64::MAX, u64::MAX, 9, 0]);
        round_trip(&[u64::MAX; 10]);
        let mut rng = crate::testing::rng::Rng(0x5eed);
        let dense: Vec<u64> = (0..5000)
            .map(|k| match rng.next() % 4 {
                0 => 0,
                1 => u64::MAX,
                _ if k % 7 == 0 => 0,
                _ => rng.next(),
            })
            .collect();
        round_trip(&dense);
    }

    #[test]
    fn serialized_form_is_git_s() {
        // Two zero words, one literal: a marker (run 2 of 0s, 1 literal),
        // then the literal; 3 words, 192 bits, the last marker at 0.
        let ewah = Ewah::from_words(&[0, 0, 0b1011]);
        let mut out = Vec::new();
        ewah.write_to(&mut out).unwrap();
        let mut expected = Vec::new();
        expected.extend_from_slice(&192u32.to_be_bytes());
        expected.extend_from_slice(&2u32.to_be_bytes());
        expected.extend_from_slice(&((2u64 << 1) | (1u64 << 33)).to_be_bytes());
        expected.extend_from_slice(&0b1011u64.to_be_bytes());
        expected.extend_from_slice(&0u32.to_be_bytes());
        assert_eq!(out, expected);
    }
}
