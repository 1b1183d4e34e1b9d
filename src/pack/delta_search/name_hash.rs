//! The name hashes the delta search sorts by (`pack-objects.h`): a 32-bit
//! number from an object's path, so that the versions of one file end up
//! next to each other and diffed against each other.
//!
//! * Version 1 (`pack_name_hash`) weighs the last sixteen characters most,
//!   so every `Makefile` of a repository shares one run.
//! * Version 2 (`pack_name_hash_v2`, git 2.49) hashes each component on
//!   its own and folds the directory in below the last one, so the same
//!   name in two directories sorts near, but not into, one run.
//!
//! A tree walk knows a directory's hash before its entries', so version 2
//! is computed one component at a time: the hash of `dir/name` is
//! [`join_v2`] of the hash of `dir` (0 for the root) and
//! [`component_v2`] of `name`, exactly what [`pack_name_hash_v2`] gives
//! for the whole path.

/// Which name hash the delta search sorts by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NameHashVersion {
    /// git's original hash, of the entry's own name.
    V1 = 1,
    /// git's full-path hash.
    #[default]
    V2 = 2,
}

/// The characters git's `isspace` skips (its own ctype table: no form feed
/// or vertical tab, unlike the C locale's).
fn skipped(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

/// git's `pack_name_hash` (version 1) of `name`.
pub fn pack_name_hash(name: &[u8]) -> u32 {
    name.iter()
        .filter(|&&c| !skipped(c))
        .fold(0u32, |hash, &c| {
            (hash >> 2).wrapping_add(u32::from(c) << 24)
        })
}

/// Version 2's hash of one path component (no `/` in it): each byte's bits
/// reversed, folded in as version 1 folds bytes.
pub fn component_v2(component: &[u8]) -> u32 {
    component
        .iter()
        .filter(|&&c| !skipped(c))
        .fold(0u32, |hash, &c| {
            (hash >> 2).wrapping_add(u32::from(c.reverse_bits()) << 24)
        })
}

/// Version 2's hash of `dir/name` from the hash of `dir` (0 for the root,
/// whose path is empty) and [`component_v2`] of `name`.
pub fn join_v2(dir: u32, component: u32) -> u32 {
    (dir >> 6) ^ component
}

/// git's `pack_name_hash_v2` of a whole path.
pub fn pack_name_hash_v2(path: &[u8]) -> u32 {
    path.split(|&c| c == b'/')
        .fold(0, |dir, component| join_v2(dir, component_v2(component)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_1_matches_git() {
        assert_eq!(pack_name_hash(b""), 0);
        assert_eq!(pack_name_hash(b"a"), u32::from(b'a') << 24);
        // ((0x61 << 24) >> 2) + (0x62 << 24), by hand.
        assert_eq!(pack_name_hash(b"ab"), 0x1840_0000 + 0x6200_0000);
        assert_eq!(pack_name_hash(b"a b"), pack_name_hash(b"ab"));
        assert_eq!(pack_name_hash(b"a\tb\r\n"), pack_name_hash(b"ab"));
        // git's isspace does not skip a form feed.
        assert_ne!(pack_name_hash(b"a\x0cb"), pack_name_hash(b"ab"));
        // What git's own name-hash stability test expects.
        assert_eq!(pack_name_hash(b"first"), 2_582_249_472);
        assert_eq!(
            pack_name_hash(b"a/one-long-enough-for-collisions"),
            pack_name_hash(b"b/two-long-enough-for-collisions")
        );
    }

    #[test]
    fn version_2_matches_git_computed_by_hand() {
        // 'a' = 0b0110_0001 reversed is 0b1000_0110 = 0x86; 'b' = 0x62
        // reversed is 0x46. "a": 0x86 << 24. "a/b": the directory's hash
        // shifted down 6 bits, XOR the last component's: 0x0218_0000 ^
        // 0x4600_0000.
        assert_eq!(pack_name_hash_v2(b""), 0);
        assert_eq!(pack_name_hash_v2(b"a"), 0x8600_0000);
        assert_eq!(pack_name_hash_v2(b"a/b"), 0x4418_0000);
        // "ab" folds as version 1 does, on reversed bytes.
        assert_eq!(pack_name_hash_v2(b"ab"), (0x8600_0000 >> 2) + 0x4600_0000);
        assert_eq!(pack_name_hash_v2(b"a b"), pack_name_hash_v2(b"ab"));
        // What git's own name-hash stability test expects.
        assert_eq!(pack_name_hash_v2(b"first"), 1_763_573_760);
        assert_eq!(pack_name_hash_v2(b"second"), 1_188_134_912);
        assert_eq!(
            pack_name_hash_v2(b"a/one-long-enough-for-collisions"),
            3_963_087_891
        );
        assert_eq!(
            pack_name_hash_v2(b"b/two-long-enough-for-collisions"),
            4_013_419_539
        );
        assert_eq!(
            pack_name_hash_v2(b"many/parts/to/this/path/enough/to/collide/in/v2"),
            1_709_547_268
        );
    }

    #[test]
    fn version_2_joins_one_component_at_a_time() {
        let dir = join_v2(join_v2(0, component_v2(b"src")), component_v2(b"pack"));
        assert_eq!(dir, pack_name_hash_v2(b"src/pack"));
        assert_eq!(
            join_v2(dir, component_v2(b"Makefile")),
            pack_name_hash_v2(b"src/pack/Makefile")
        );
        // The same name in two directories: two hashes.
        assert_ne!(
            pack_name_hash_v2(b"src/Makefile"),
            pack_name_hash_v2(b"doc/Makefile")
        );
    }
}
