//! The mode of a tree entry, as git reads it: octal digits accumulated in
//! an `unsigned int` (git's `decode_tree_entry`), then its type bits
//! (`S_ISDIR`, `S_ISGITLINK`, regular files and symlinks).
//!
//! The digits are kept as stored everywhere else (`40000` and `040000`
//! name the same mode but not the same tree object); this is only how a
//! mode is classified. Wrapping like git's accumulator, an absurdly long
//! mode gets the answer git's tree walker would give.

/// The type bits of a mode.
const TYPE_MASK: u32 = 0o170000;

/// A tree entry's mode, read as git reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TreeMode(u32);

impl TreeMode {
    /// Reads the mode digits of an entry (validated octal by the tree
    /// parser; any other byte counts as its low three bits, as in git).
    pub fn parse(digits: &[u8]) -> TreeMode {
        TreeMode(digits.iter().fold(0u32, |m, &d| {
            m.wrapping_shl(3)
                .wrapping_add(u32::from(d.wrapping_sub(b'0') & 7))
        }))
    }

    /// A subtree (`S_ISDIR`): it sorts as if its name ended in `/`.
    pub fn is_tree(self) -> bool {
        self.0 & TYPE_MASK == 0o040000
    }

    /// A submodule commit (`S_ISGITLINK`).
    pub fn is_gitlink(self) -> bool {
        self.0 & TYPE_MASK == 0o160000
    }

    /// A blob: a regular file (with any permission bits, as git accepts odd
    /// ones like 100664) or a symlink.
    pub fn is_blob(self) -> bool {
        matches!(self.0 & TYPE_MASK, 0o100000 | 0o120000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_classify_as_git_does() {
        for (digits, tree, gitlink, blob) in [
            (&b"40000"[..], true, false, false),
            (b"040000", true, false, false),
            (b"160000", false, true, false),
            (b"100644", false, false, true),
            (b"100755", false, false, true),
            (b"100664", false, false, true),
            (b"120000", false, false, true),
            (b"0", false, false, false),
        ] {
            let mode = TreeMode::parse(digits);
            assert_eq!(
                (mode.is_tree(), mode.is_gitlink(), mode.is_blob()),
                (tree, gitlink, blob),
                "{}",
                String::from_utf8_lossy(digits)
            );
        }
        // An overlong mode wraps like git's accumulator: the last digits
        // decide the type bits.
        assert!(TreeMode::parse(b"7777777777040000").is_tree());
    }
}
