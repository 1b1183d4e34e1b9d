//! Refusals: SOURCE is readable and intact, but cannot be converted as it
//! is. Each message says what to do: an option to pass, a git command to
//! run first, a different DEST.

use std::path::PathBuf;

use super::findings::{ReachingRefs, RefusalReach};
use crate::convert::scan::MissingReference;
use crate::hash::ObjectId;
use crate::object::ReferenceRole;

#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error(
        "cannot convert {}: a {operation} is in progress; finish or abort it first (its state files hold SHA-1 ids that would be left behind)",
        path.display()
    )]
    InProgress { path: PathBuf, operation: String },
    #[error(
        "destination {} is inside the source repository {}; choose a directory outside it",
        dest.display(),
        source_dir.display()
    )]
    DestInsideSource { dest: PathBuf, source_dir: PathBuf },
    #[error("{}", missing_message(missing, reach))]
    MissingObjects {
        missing: Vec<MissingReference>,
        reach: RefusalReach,
    },
    #[error("{message}")]
    UnmappedGitlinks {
        message: String,
        submodules: Vec<UnmappedSubmodule>,
        reach: RefusalReach,
    },
    /// Every commit whose mergetag names an object SOURCE does not have,
    /// sorted, each (commit, target) once.
    #[error("{}", unmapped_mergetags_message(mergetags, reach))]
    UnmappedMergetags {
        mergetags: Vec<MergetagTarget>,
        reach: RefusalReach,
    },
    /// A ref selection that leaves out the branch `HEAD` names: DEST's
    /// `HEAD` would dangle.
    #[error(
        "HEAD names {branch}, which the ref selection ({selection}) leaves out, so DEST's HEAD \
         would name nothing; select it too (--refs {branch}), or point SOURCE's HEAD at a \
         selected branch first (git symbolic-ref HEAD refs/heads/<branch>)"
    )]
    HeadLeftOut { branch: String, selection: String },
    /// A ref selection that keeps none of SOURCE's refs.
    #[error(
        "the ref selection ({selection}) keeps none of SOURCE's {refs} refs, so DEST would hold \
         nothing; check the patterns against `git for-each-ref` in SOURCE (they name refs in \
         full, and * matches / too)"
    )]
    SelectionKeepsNothing { refs: usize, selection: String },
    #[error("ref {refname} points to {id}, which is not in the repository")]
    MissingRefTarget { refname: String, id: ObjectId },
    #[error("{0}")]
    IncompatibleOptions(String),
    #[error("cannot share objects with {}: {reason}", pool.display())]
    SharedPool { pool: PathBuf, reason: String },
}

/// A submodule path whose gitlinks name commits no map gives a SHA-256
/// name to.
#[derive(Debug, Clone)]
pub struct UnmappedSubmodule {
    /// The gitlink's path in the superproject's trees, or its name and
    /// tree when no commit reaches that tree.
    pub path: String,
    /// The distinct submodule commits pinned there, sorted.
    pub commits: Vec<ObjectId>,
    /// A superproject commit whose tree pins one of them.
    pub pinned_by: Option<ObjectId>,
    /// The refs that reach a tree pinning one of them.
    pub reached_from: ReachingRefs,
}

/// A commit whose `mergetag` names an object the repository does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergetagTarget {
    pub commit: ObjectId,
    /// What the embedded tag's `object` line names.
    pub target: ObjectId,
    /// The refs that reach the commit.
    pub reached_from: ReachingRefs,
}

/// Lists them all: they are found in one scan, and a user who fixes them
/// (or reviews them before choosing the policy) needs every one.
fn unmapped_mergetags_message(mergetags: &[MergetagTarget], reach: &RefusalReach) -> String {
    let mut commits: Vec<_> = mergetags.iter().map(|m| m.commit).collect();
    commits.dedup();
    let mut s = format!(
        "cannot convert: the mergetag of {} commit(s) names an object the repository does not \
         have, so it has no exact SHA-256 translation (git accepts such history: nothing in git \
         checks what a mergetag names):",
        commits.len()
    );
    for m in mergetags {
        s.push_str(&format!(
            "\n  the mergetag of commit {} names {}, which the repository does not have; {}",
            m.commit, m.target, m.reached_from
        ));
    }
    s.push_str(
        "\nnothing was written; --unmapped-mergetags=verbatim converts these commits keeping each \
         such mergetag byte for byte (its signature still verifies against its original bytes), \
         and records them in the map so that they translate back exactly",
    );
    s.push_str(&reach_line("these commits", reach));
    s
}

/// The refusal's last line: which refs reach what it names, and the
/// selection that converts without them.
pub fn reach_line(what: &str, reach: &RefusalReach) -> String {
    let refs = &reach.refs;
    if refs.count == 0 {
        return format!(
            "; no ref reaches {what}: to convert only what the refs reach, run with {}",
            reach.options_past
        );
    }
    format!(
        "; {what} are {refs}: to convert without {}, run with {}",
        if refs.count == 1 {
            "that ref"
        } else {
            "those refs"
        },
        reach.options_past,
    )
}

fn missing_message(missing: &[MissingReference], reach: &RefusalReach) -> String {
    const SHOWN: usize = 10;
    // A tree may name the same absent blob under many paths: list each
    // (missing object, holder) pair once.
    let mut pairs: Vec<&MissingReference> = missing.iter().collect();
    pairs.sort_by_key(|m| (m.missing, m.holder));
    pairs.dedup_by_key(|m| (m.missing, m.holder));
    let mut distinct: Vec<_> = pairs.iter().map(|m| m.missing).collect();
    distinct.dedup();
    let mut s = format!(
        "{} object(s) are missing from the repository, referenced {} time(s) \
         (run `git fsck` on the source; a partial clone needs its missing objects fetched first):",
        distinct.len(),
        pairs.len()
    );
    for m in pairs.iter().take(SHOWN) {
        s.push_str(&format!(
            "\n  {} ({} of {} {}): {}",
            m.missing,
            role_name(m.role),
            m.holder_kind,
            m.holder,
            m.reached_from
        ));
    }
    if pairs.len() > SHOWN {
        s.push_str(&format!("\n  ... and {} more", pairs.len() - SHOWN));
    }
    s.push_str(&format!(
        "\nnothing was written{}",
        reach_line("the objects that name them", reach)
    ));
    s
}

/// How a reference is described to users.
pub fn role_name(role: ReferenceRole) -> &'static str {
    match role {
        ReferenceRole::TreeEntry { gitlink: true } => "gitlink entry",
        ReferenceRole::TreeEntry { gitlink: false } => "entry",
        ReferenceRole::CommitTree => "tree",
        ReferenceRole::Parent => "parent",
        ReferenceRole::MergetagObject => "mergetag object",
        ReferenceRole::TagObject => "target",
    }
}
