//! The fuzz targets of `fuzz/` run on stable inside `cargo test`: each entry
//! point of `git_rehash::fuzzing` gets valid seeds and a few thousand
//! deterministic mutations of them (bit flips, byte edits, truncation,
//! insertion, splicing). A panic anywhere fails the test and prints the
//! input. Real coverage-guided fuzzing: `cargo +nightly fuzz run <target>`
//! (see docs/hostile.md).

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::support::library::fuzzing;
use crate::support::raw_object::{fake_name, hex, tree_entry};
use crate::support::raw_pack::{
    blob_entry, delta, idx_bytes, ofs_delta_entry, pack_bytes, ref_delta_entry,
};

/// Mutations per target.
const ROUNDS: usize = 3000;

/// xorshift64*: deterministic, so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INTERESTING: [u8; 10] = [0, 1, 0x7f, 0x80, 0xff, b'\n', b' ', b'0', b'9', b'f'];

fn mutate(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut data = seeds[rng.below(seeds.len())].clone();
    for _ in 0..=rng.below(4) {
        let len = data.len();
        match rng.below(7) {
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = INTERESTING[rng.below(INTERESTING.len())];
            }
            2 => data.truncate(rng.below(len + 1)),
            3 => {
                let i = rng.below(len + 1);
                data.insert(i, rng.next() as u8);
            }
            4 if len > 0 => {
                let i = rng.below(len);
                data.remove(i);
            }
            5 => {
                let other = &seeds[rng.below(seeds.len())];
                let (at, from) = (rng.below(len + 1), rng.below(other.len() + 1));
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
            _ if len > 0 => {
                let i = rng.below(len);
                data[i] = rng.next() as u8;
            }
            _ => data.push(rng.next() as u8),
        }
    }
    data
}

fn run(name: &str, target: fn(&[u8]), seeds: Vec<Vec<u8>>, seed: u64) {
    let mut rng = Rng(seed);
    let inputs = seeds
        .iter()
        .cloned()
        .chain((0..ROUNDS).map(|_| mutate(&mut rng, &seeds)))
        .chain(std::iter::once(Vec::new()));
    for input in inputs {
        if catch_unwind(AssertUnwindSafe(|| target(&input))).is_err() {
            panic!("fuzz target {name} panicked on input {}", hex(&input));
        }
    }
}

const ID1: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const ID2: &str = "0123456789abcdef0123456789abcdef01234567";

#[test]
fn pack_entry_reader() {
    let mut seeds = vec![
        blob_entry(b"hello\n").bytes,
        blob_entry(&b"longer content ".repeat(40)).bytes,
    ];
    let d = delta(6, 3, &[0x90, 3]);
    seeds.push(ofs_delta_entry(0x1234, &d, fake_name(1)).bytes);
    seeds.push(ref_delta_entry(fake_name(2), &d, fake_name(3)).bytes);
    run("pack_entry", fuzzing::pack_entry, seeds, 1);
}

#[test]
fn delta_applier() {
    let base = b"0123456789abcdef".to_vec();
    let with_base = |d: Vec<u8>| {
        let mut v = vec![base.len() as u8];
        v.extend_from_slice(&base);
        v.extend(d);
        v
    };
    let seeds = vec![
        with_base(delta(16, 11, &[0x91, 10, 6, 0x02, b'X', b'Y', 0x90, 3])),
        with_base(delta(16, 16, &[0xb0, 0x10, 0x00])),
        with_base(delta(16, 1, &[0x01, b'z'])),
    ];
    run("delta", fuzzing::delta, seeds, 2);
}

#[test]
fn idx_reader() {
    let entries = [blob_entry(b"a\n"), blob_entry(b"b\n"), blob_entry(b"c\n")];
    let pack = pack_bytes(&entries);
    let seeds = vec![idx_bytes(&entries, &pack), idx_bytes(&entries[..1], &pack)];
    run("idx", fuzzing::idx, seeds, 3);
}

fn tree_seed() -> Vec<u8> {
    let mut t = Vec::new();
    for (mode, name) in [
        ("100644", "a"),
        ("40000", "dir"),
        ("160000", "sub"),
        ("120000", "link"),
    ] {
        t.extend(tree_entry(mode, name, &[0x42; 20]));
    }
    t
}

#[test]
fn tree_translator() {
    run("tree", fuzzing::tree, vec![tree_seed(), Vec::new()], 4);
}

#[test]
fn commit_translator() {
    let plain = format!(
        "tree {ID1}\nparent {ID2}\nauthor A <a@b> 1 +0000\ncommitter C <c@d> 2 +0000\n\nmsg\n"
    );
    let tagged = format!(
        "tree {ID1}\nparent {ID2}\nparent {ID1}\nauthor A <a@b> 1 +0000\ncommitter C <c@d> 2 +0000\nmergetag object {ID2}\n type commit\n tag v1\n tagger T <t@t> 3 +0000\n \n sig\ngpgsig -----BEGIN PGP SIGNATURE-----\n abc\n -----END PGP SIGNATURE-----\nchange-id xyz\n\nmerge\n"
    );
    run(
        "commit",
        fuzzing::commit,
        vec![plain.into_bytes(), tagged.into_bytes()],
        5,
    );
}

#[test]
fn tag_translator() {
    let tag = format!(
        "object {ID2}\ntype commit\ntag v1\ntagger T <t@t> 3 +0000\n\nmessage\n-----BEGIN PGP SIGNATURE-----\nabc\n-----END PGP SIGNATURE-----\n"
    );
    run("tag", fuzzing::tag, vec![tag.into_bytes()], 6);
}

#[test]
fn object_id_parser() {
    let seeds = vec![
        ID1.as_bytes().to_vec(),
        ID2.to_uppercase().into_bytes(),
        "ab".repeat(32).into_bytes(),
    ];
    run("object_id_hex", fuzzing::object_id_hex, seeds, 7);
}
