//! Which refs a conversion carries: `--refs` and `--exclude-refs`
//! patterns ([`RefPattern`], matched with git's wildmatch as `git rev-list
//! --exclude` and refspecs match: `*` also matches `/`), and the snapshot
//! cut down to the refs a [`RefSelection`] keeps
//! ([`SourceRefs::selected`]).
//!
//! `HEAD` is always kept. A symbolic ref is kept when its own name is and
//! the ref it names is too (or does not exist, as an unborn branch); the
//! reflog of a ref that is left out is left out with it. A `HEAD` whose
//! branch the selection leaves out would dangle: [`SourceRefs::head_left_out`]
//! names that branch, for the caller to refuse.

use std::collections::BTreeMap;

use gix_glob::wildmatch;
use serde::{Deserialize, Serialize};

use super::RefTarget;
use super::snapshot::SourceRefs;

/// One ref pattern, as given (`refs/pull/*`, `refs/heads/main`): a full
/// ref name with git's glob characters (`*`, `?`, `[...]`), matched whole
/// with git's wildmatch, `*` matching `/` too (as `git rev-list --exclude`
/// and refspecs). A pattern without them names that ref and every ref
/// below it (`refs/pull` is `refs/pull/*`), as `git for-each-ref`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct RefPattern(String);

impl RefPattern {
    /// Whether the pattern selects the ref `name`.
    pub fn matches(&self, name: &str) -> bool {
        let pattern = self.0.as_str();
        if !has_glob(pattern) {
            return name
                .strip_prefix(pattern)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
        }
        wildmatch(
            pattern.as_bytes().into(),
            name.as_bytes().into(),
            wildmatch::Mode::empty(),
        )
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// git's `has_glob_specials`: the characters that make a pattern a glob.
fn has_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '\\'])
}

impl std::str::FromStr for RefPattern {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let trimmed = s.trim_end_matches('/');
        if !trimmed.starts_with("refs/") {
            let example = match s.trim_start_matches('/') {
                rest if rest.is_empty() || rest.starts_with("refs") => "refs/pull/*".to_string(),
                rest => format!("refs/{rest}"),
            };
            return Err(format!(
                "{s:?} is not a ref pattern: patterns name refs in full, from refs/ \
                 (for example {example})"
            ));
        }
        if trimmed.contains("//") {
            return Err(format!(
                "{s:?} is not a ref pattern: an empty name component"
            ));
        }
        Ok(RefPattern(trimmed.to_string()))
    }
}

impl TryFrom<String> for RefPattern {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl From<RefPattern> for String {
    fn from(p: RefPattern) -> String {
        p.0
    }
}

impl std::fmt::Display for RefPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The refs a conversion carries, and so the objects it converts: what
/// they reach (and `HEAD`). `refs` empty: every ref; `exclude` takes refs
/// out again. `--reachable-only` is the selection of every ref.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefSelection {
    /// `--refs`: the refs kept (empty: all).
    #[serde(default)]
    pub refs: Vec<RefPattern>,
    /// `--exclude-refs`: refs left out even when `refs` names them.
    #[serde(default, rename = "exclude_refs")]
    pub exclude: Vec<RefPattern>,
}

impl RefSelection {
    /// Whether the ref `name` is carried (not `HEAD`: always).
    pub fn keeps(&self, name: &str) -> bool {
        (self.refs.is_empty() || self.refs.iter().any(|p| p.matches(name)))
            && !self.exclude.iter().any(|p| p.matches(name))
    }

    /// Every ref: `--reachable-only`.
    pub fn is_every_ref(&self) -> bool {
        self.refs.is_empty() && self.exclude.is_empty()
    }

    /// The options that ask for this selection, as a user types them.
    pub fn command_line(&self) -> String {
        if self.is_every_ref() {
            return "--reachable-only".to_string();
        }
        let refs = self.refs.iter().map(|p| format!("--refs '{p}'"));
        let exclude = self.exclude.iter().map(|p| format!("--exclude-refs '{p}'"));
        refs.chain(exclude).collect::<Vec<_>>().join(" ")
    }

    /// The selection as DEST's map records it (JSON).
    pub fn to_record(&self) -> String {
        serde_json::to_string(self).expect("a ref selection always serialises")
    }

    /// A recorded selection; `None` for a record that is not one.
    pub fn from_record(text: &str) -> Option<Self> {
        serde_json::from_str(text).ok()
    }
}

impl SourceRefs {
    /// The branch `HEAD` names when `selection` leaves that branch out
    /// while the repository has it: DEST's `HEAD` would dangle.
    pub fn head_left_out(&self, selection: &RefSelection) -> Option<String> {
        let RefTarget::Symbolic(branch) = &self.head else {
            return None;
        };
        let refs: BTreeMap<String, RefTarget> = self.effective_refs().into_iter().collect();
        let kept = kept_names(&refs, selection);
        (refs.contains_key(branch) && !kept.contains_key(branch.as_str())).then(|| branch.clone())
    }

    /// The names of the refs `selection` keeps, sorted.
    pub fn kept_ref_names(&self, selection: &RefSelection) -> Vec<String> {
        let refs: BTreeMap<String, RefTarget> = self.effective_refs().into_iter().collect();
        kept_names(&refs, selection)
            .into_keys()
            .map(str::to_string)
            .collect()
    }

    /// The snapshot with only the refs `selection` keeps, their reflogs,
    /// `HEAD` and its reflog, and the pseudo-refs (which name objects
    /// only: those the selection does not reach are dropped when the refs
    /// are written, as pruned ones are).
    pub fn selected(&self, selection: &RefSelection) -> SourceRefs {
        let refs: BTreeMap<String, RefTarget> = self.effective_refs().into_iter().collect();
        let kept = kept_names(&refs, selection);
        let mut out = self.clone();
        out.loose.retain(|r| kept.contains_key(r.name.as_str()));
        if let Some(packed) = &mut out.packed {
            packed
                .entries
                .retain(|r| kept.contains_key(r.name.as_str()));
        }
        out.reflogs
            .retain(|log| log.name == "HEAD" || kept.contains_key(log.name.as_str()));
        out
    }
}

/// The refs of `refs` that `selection` keeps: those it names, less the
/// symbolic ones whose target (followed to the end) it leaves out.
fn kept_names<'a>(
    refs: &'a BTreeMap<String, RefTarget>,
    selection: &RefSelection,
) -> BTreeMap<&'a str, ()> {
    let follows_kept = |name: &str| {
        // A chain of symbolic refs ends at a ref, or at a name that is no
        // ref (unborn): kept when every ref on it is. git stops at 5.
        let mut at = name;
        for _ in 0..=5 {
            if !selection.keeps(at) && refs.contains_key(at) {
                return false;
            }
            match refs.get(at) {
                Some(RefTarget::Symbolic(next)) => at = next,
                _ => return true,
            }
        }
        true
    };
    refs.keys()
        .filter(|name| selection.keeps(name) && follows_kept(name))
        .map(|name| (name.as_str(), ()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::{HashKind, ObjectId};
    use crate::refs::{LooseRef, PackedRef, PackedRefs, RefStorage, Reflog};

    fn pattern(s: &str) -> RefPattern {
        s.parse().unwrap()
    }

    fn selection(refs: &[&str], exclude: &[&str]) -> RefSelection {
        RefSelection {
            refs: refs.iter().map(|s| pattern(s)).collect(),
            exclude: exclude.iter().map(|s| pattern(s)).collect(),
        }
    }

    #[test]
    fn a_star_matches_across_slashes_as_git_rev_list_exclude() {
        let pull = pattern("refs/pull/*");
        assert!(pull.matches("refs/pull/1/head"));
        assert!(pull.matches("refs/pull/12/merge"));
        assert!(!pull.matches("refs/pulls/1/head"));
        assert!(!pull.matches("refs/heads/pull/1"));
        assert!(pattern("refs/heads/release-[0-9]*").matches("refs/heads/release-2/x"));
        assert!(!pattern("refs/heads/release-[0-9]*").matches("refs/heads/release-x"));
        assert!(pattern("refs/*/1/head").matches("refs/pull/1/head"));
        assert!(pattern("refs/heads/ma?n").matches("refs/heads/main"));
    }

    #[test]
    fn a_name_without_glob_selects_itself_and_what_is_below_it() {
        let heads = pattern("refs/heads/");
        assert_eq!(heads.as_str(), "refs/heads");
        assert!(heads.matches("refs/heads/main"));
        assert!(heads.matches("refs/heads/a/b"));
        assert!(!heads.matches("refs/headsx/main"));
        let main = pattern("refs/heads/main");
        assert!(main.matches("refs/heads/main"));
        assert!(!main.matches("refs/heads/mainline"));
    }

    #[test]
    fn patterns_name_refs_in_full() {
        for bad in ["pull/*", "heads/main", "*", "", "refs", "refs/", "refs//x"] {
            let err = bad.parse::<RefPattern>().unwrap_err();
            assert!(err.contains("not a ref pattern"), "{bad}: {err}");
        }
        assert!(
            "pull/*"
                .parse::<RefPattern>()
                .unwrap_err()
                .contains("refs/pull/*")
        );
    }

    #[test]
    fn refs_then_exclusions() {
        let s = selection(&["refs/heads", "refs/tags/*"], &["refs/heads/wip/*"]);
        assert!(s.keeps("refs/heads/main"));
        assert!(s.keeps("refs/tags/v1"));
        assert!(!s.keeps("refs/heads/wip/x"));
        assert!(!s.keeps("refs/pull/1/head"));
        let all = selection(&[], &["refs/pull/*"]);
        assert!(all.keeps("refs/notes/commits"));
        assert!(!all.keeps("refs/pull/1/head"));
        assert_eq!(
            all.command_line(),
            "--exclude-refs 'refs/pull/*'".to_string()
        );
        assert_eq!(RefSelection::default().command_line(), "--reachable-only");
    }

    #[test]
    fn a_record_reads_back() {
        let s = selection(&["refs/heads"], &["refs/pull/*"]);
        assert_eq!(RefSelection::from_record(&s.to_record()), Some(s));
        assert_eq!(RefSelection::from_record("{\"refs\":[\"pull\"]}"), None);
    }

    fn id(n: u8) -> ObjectId {
        ObjectId::Sha1([n; 20])
    }

    fn snapshot() -> SourceRefs {
        let packed = |name: &str, n| PackedRef {
            name: name.into(),
            id: id(n),
            peeled: None,
        };
        SourceRefs {
            hash: HashKind::Sha1,
            storage: RefStorage::Files,
            head: RefTarget::Symbolic("refs/heads/main".into()),
            loose: vec![
                LooseRef {
                    name: "refs/remotes/origin/HEAD".into(),
                    target: RefTarget::Symbolic("refs/remotes/origin/main".into()),
                },
                LooseRef {
                    name: "refs/remotes/origin/main".into(),
                    target: RefTarget::Direct(id(4)),
                },
            ],
            packed: Some(PackedRefs {
                header: None,
                entries: vec![
                    packed("refs/heads/main", 1),
                    packed("refs/pull/1/head", 2),
                    packed("refs/tags/v1", 3),
                ],
            }),
            pseudo: Vec::new(),
            reflogs: ["HEAD", "refs/heads/main", "refs/pull/1/head"]
                .into_iter()
                .map(|name| Reflog {
                    name: name.into(),
                    entries: Vec::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn the_snapshot_keeps_the_selected_refs_and_their_reflogs() {
        let refs = snapshot().selected(&selection(&[], &["refs/pull/*"]));
        let names: Vec<String> = refs.effective_refs().into_iter().map(|r| r.0).collect();
        assert_eq!(
            names,
            [
                "refs/heads/main",
                "refs/remotes/origin/HEAD",
                "refs/remotes/origin/main",
                "refs/tags/v1"
            ]
        );
        let logs: Vec<&str> = refs.reflogs.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(logs, ["HEAD", "refs/heads/main"]);
    }

    #[test]
    fn a_symbolic_ref_follows_its_target_out() {
        let s = selection(&[], &["refs/remotes/origin/main"]);
        let names = snapshot().kept_ref_names(&s);
        assert!(
            !names.iter().any(|n| n.starts_with("refs/remotes/")),
            "{names:?}"
        );
        assert_eq!(snapshot().head_left_out(&s), None);
    }

    #[test]
    fn a_head_whose_branch_is_left_out_is_named() {
        let tags = selection(&["refs/tags/*"], &[]);
        assert_eq!(
            snapshot().head_left_out(&tags),
            Some("refs/heads/main".to_string())
        );
        // An unborn branch dangles in SOURCE too: nothing is lost.
        let mut unborn = snapshot();
        unborn.head = RefTarget::Symbolic("refs/heads/new".into());
        assert_eq!(unborn.head_left_out(&tags), None);
    }
}
