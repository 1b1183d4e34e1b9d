//! `convert --json`: one JSON object on stdout at the end of a run, for
//! scripts and CI, whether the run converted, was refused, failed or was
//! interrupted. Counts are `null` when the run did not finish; a refusal
//! names the objects it is about in fields of its own, so a caller need
//! not parse the message.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::convert_exit::RunEnd;
use super::exit_class::{ExitClass, kind_word};
use super::phase_timings::PhaseTime;
use git_rehash::convert::{
    ConvertError, ConvertOutcome, CorruptInput, MissingReference, ReachingRefs, Refusal,
    RefusalReach, UnmappedSubmodule, role_name,
};
use git_rehash::object::ObjectKind;
use git_rehash::pipeline::ErrorKind;
use git_rehash::refs::RefSelection;

#[derive(Serialize)]
pub struct RunReport {
    status: &'static str,
    exit_code: u8,
    exit_meaning: &'static str,
    /// SOURCE and DEST as given; `null` when the command line could not
    /// be read.
    source: Option<String>,
    dest: Option<String>,
    /// What a finished run did; `null` otherwise.
    result: Option<ResultReport>,
    /// Why the run stopped; `null` when it finished or was interrupted.
    error: Option<ErrorReport>,
    /// Every phase in order, the last one the whole run.
    phases: Vec<PhaseReport>,
}

#[derive(Serialize)]
struct ResultReport {
    objects_listed: u64,
    /// Objects earlier runs had converted (not written again by this one).
    objects_already_converted: u64,
    /// Of those, objects an interrupted run wrote, folded by this run.
    objects_from_interrupted_runs: u64,
    /// Objects the shared pool's conversion holds (`--shared-with`).
    objects_in_shared_pool: u64,
    /// Objects this run converted and wrote: with the two above, every
    /// object listed.
    objects_converted: u64,
    /// Objects this run's scan decoded and checked.
    objects_scanned: u64,
    /// Objects SOURCE holds that the ref selection does not reach.
    objects_left_out: u64,
    /// The refs the run carried (`refs`, `exclude_refs` patterns);
    /// `null`: every object SOURCE holds.
    ref_selection: Option<RefSelection>,
    /// SOURCE's refs the selection leaves out.
    refs_left_out: usize,
    /// Set when the selection differs from the one DEST recorded.
    selection_note: Option<String>,
    /// Objects an interrupted run had scanned (taken from its checkpoint).
    objects_restored_from_checkpoint: u64,
    objects_by_type: BTreeMap<&'static str, u64>,
    bytes_inflated: u64,
    packs_written: u32,
    pack_bytes: u64,
    segments_written: u32,
    refs_written: usize,
    refs_deleted: usize,
    reflog_entries_dropped: usize,
    pseudo_refs_dropped: Vec<String>,
    unknown_headers_copied: BTreeMap<String, u64>,
    /// Commits translated with a mergetag kept verbatim.
    verbatim_mergetag_commits: u64,
    gitlinks_mapped: usize,
    gitlink_surrogates: usize,
    submodules: Vec<SubmoduleReport>,
    map: String,
    /// Worker threads the run used.
    workers: usize,
}

#[derive(Serialize)]
struct SubmoduleReport {
    name: String,
    status: &'static str,
    objects_converted: u64,
    dest: String,
}

#[derive(Serialize)]
struct ErrorReport {
    /// `refused`, `corrupt`, `dest_state`, `usage` or `failed`.
    kind: &'static str,
    /// The message printed on stderr, without its causes.
    message: String,
    causes: Vec<String>,
    /// The submodule whose conversion stopped (nested: `outer/inner`).
    #[serde(skip_serializing_if = "Option::is_none")]
    submodule: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    missing_objects: Vec<MissingObjectReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unmapped_gitlinks: Vec<UnmappedGitlinkReport>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unmapped_mergetags: Vec<MergetagReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    missing_ref_target: Option<RefReport>,
    /// The refs that reach any object the refusal names.
    #[serde(skip_serializing_if = "Option::is_none")]
    reaching_refs: Option<ReachingReport>,
    /// The options that convert without them (`--exclude-refs '...'`,
    /// `--reachable-only`).
    #[serde(skip_serializing_if = "Option::is_none")]
    options_past: Option<String>,
    /// The object a corrupt-input error is about.
    #[serde(skip_serializing_if = "Option::is_none")]
    object: Option<ObjectReport>,
}

#[derive(Serialize)]
struct MissingObjectReport {
    id: String,
    referenced_by: String,
    referenced_by_type: &'static str,
    /// How it is referenced: `entry`, `gitlink entry`, `tree`, `parent`,
    /// `target` (a mergetag's object is an `unmapped_mergetags` refusal).
    role: &'static str,
    /// The refs that reach the missing object (through any object naming it).
    reached_from: ReachingReport,
}

#[derive(Serialize)]
struct UnmappedGitlinkReport {
    path: String,
    commits: Vec<String>,
    pinned_by: Option<String>,
    /// The refs that reach a tree pinning them.
    reached_from: ReachingReport,
}

/// A commit whose mergetag names an object the repository does not have.
#[derive(Serialize)]
struct MergetagReport {
    commit: String,
    target: String,
    /// The refs that reach the commit.
    reached_from: ReachingReport,
}

/// Refs that reach an object: how many (0: unreachable), the first few.
#[derive(Serialize)]
struct ReachingReport {
    count: usize,
    first: Vec<String>,
}

impl From<&ReachingRefs> for ReachingReport {
    fn from(refs: &ReachingRefs) -> Self {
        ReachingReport {
            count: refs.count,
            first: refs.first.clone(),
        }
    }
}

#[derive(Serialize)]
struct RefReport {
    name: String,
    target: String,
}

#[derive(Serialize)]
struct ObjectReport {
    id: String,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
}

#[derive(Serialize)]
struct PhaseReport {
    phase: &'static str,
    wall_seconds: f64,
    cpu_seconds: f64,
}

impl RunReport {
    pub fn new(
        source: &Path,
        dest: &Path,
        result: &Result<ConvertOutcome, ConvertError>,
        phases: &[PhaseTime],
    ) -> Self {
        let end = RunEnd::of(result);
        RunReport {
            status: end.status(),
            exit_code: end.class().code(),
            exit_meaning: end.exit_meaning(),
            source: Some(source.display().to_string()),
            dest: Some(dest.display().to_string()),
            result: result.as_ref().ok().map(ResultReport::new),
            error: match result {
                Err(ConvertError::Interrupted(_)) | Ok(_) => None,
                Err(e) => Some(ErrorReport::new(e)),
            },
            phases: phases
                .iter()
                .map(|t| PhaseReport {
                    phase: t.phase,
                    wall_seconds: t.wall.as_secs_f64(),
                    cpu_seconds: t.cpu.as_secs_f64(),
                })
                .collect(),
        }
    }

    /// The report of a command line clap refused: `message` is its first
    /// line.
    pub fn usage(message: String) -> Self {
        let end = RunEnd::Stopped(ExitClass::Usage);
        RunReport {
            status: end.status(),
            exit_code: end.class().code(),
            exit_meaning: end.exit_meaning(),
            source: None,
            dest: None,
            result: None,
            error: Some(ErrorReport {
                kind: kind_word(ErrorKind::Usage),
                message,
                causes: Vec::new(),
                submodule: None,
                missing_objects: Vec::new(),
                unmapped_gitlinks: Vec::new(),
                unmapped_mergetags: Vec::new(),
                missing_ref_target: None,
                reaching_refs: None,
                options_past: None,
                object: None,
            }),
            phases: Vec::new(),
        }
    }

    /// Writes the report as one line on stdout.
    pub fn print(&self) -> std::io::Result<()> {
        let mut stdout = std::io::stdout().lock();
        serde_json::to_writer(&mut stdout, self)?;
        writeln!(stdout)?;
        stdout.flush()
    }
}

impl ResultReport {
    fn new(outcome: &ConvertOutcome) -> Self {
        // Every type, so a reader finds each key even when it is 0.
        let objects_by_type = [
            ObjectKind::Commit,
            ObjectKind::Tree,
            ObjectKind::Blob,
            ObjectKind::Tag,
        ]
        .into_iter()
        .map(|kind| {
            let count = outcome.objects_by_kind.get(&kind).copied().unwrap_or(0);
            (kind.as_str(), count)
        })
        .collect();
        ResultReport {
            objects_listed: outcome.objects_listed,
            objects_already_converted: outcome.objects_known,
            objects_from_interrupted_runs: outcome.objects_carried,
            objects_in_shared_pool: outcome.objects_shared,
            objects_converted: outcome.objects_converted,
            objects_scanned: outcome.objects_read,
            objects_left_out: outcome.objects_left_out,
            ref_selection: outcome.selection.clone(),
            refs_left_out: outcome.refs_left_out,
            selection_note: outcome.selection_note.clone(),
            objects_restored_from_checkpoint: outcome.objects_restored,
            objects_by_type,
            bytes_inflated: outcome.bytes_inflated,
            packs_written: outcome.packs_written,
            pack_bytes: outcome.pack_size,
            segments_written: outcome.segments_written,
            refs_written: outcome.refs_written,
            refs_deleted: outcome.refs_deleted,
            reflog_entries_dropped: outcome.reflog_entries_dropped,
            pseudo_refs_dropped: outcome.pseudo_refs_dropped.clone(),
            unknown_headers_copied: outcome.unknown_headers.clone(),
            verbatim_mergetag_commits: outcome.verbatim_mergetag_commits,
            gitlinks_mapped: outcome.interop.gitlinks_mapped,
            gitlink_surrogates: outcome.interop.gitlink_surrogates,
            submodules: outcome
                .submodules
                .iter()
                .map(|sub| SubmoduleReport {
                    name: sub.name.clone(),
                    status: if sub.outcome.continued {
                        "updated"
                    } else {
                        "converted"
                    },
                    objects_converted: sub.outcome.objects_converted,
                    dest: sub.outcome.dest.display().to_string(),
                })
                .collect(),
            map: outcome.map_path.display().to_string(),
            workers: outcome.workers,
        }
    }
}

impl ErrorReport {
    fn new(error: &ConvertError) -> Self {
        // A submodule's error wraps the one that stopped it: report the
        // innermost, under the path of submodule names leading to it.
        let mut names = Vec::new();
        let mut inner = error;
        while let ConvertError::Submodule { name, error, .. } = inner {
            names.push(name.as_str());
            inner = error;
        }
        let mut causes = Vec::new();
        let mut cause = std::error::Error::source(inner);
        while let Some(c) = cause {
            causes.push(c.to_string());
            cause = c.source();
        }
        let mut report = ErrorReport {
            kind: kind_word(inner.kind()),
            message: inner.to_string(),
            causes,
            submodule: (!names.is_empty()).then(|| names.join("/")),
            missing_objects: Vec::new(),
            unmapped_gitlinks: Vec::new(),
            unmapped_mergetags: Vec::new(),
            missing_ref_target: None,
            reaching_refs: None,
            options_past: None,
            object: None,
        };
        let mut reached = |reach: &RefusalReach| {
            report.reaching_refs = Some((&reach.refs).into());
            report.options_past = Some(reach.options_past.clone());
        };
        match inner {
            ConvertError::Refused(Refusal::MissingObjects { missing, reach }) => {
                reached(reach);
                report.missing_objects = missing_objects(missing);
            }
            ConvertError::Refused(Refusal::UnmappedGitlinks {
                submodules, reach, ..
            }) => {
                reached(reach);
                report.unmapped_gitlinks = submodules.iter().map(unmapped_gitlink).collect();
            }
            ConvertError::Refused(Refusal::UnmappedMergetags { mergetags, reach }) => {
                reached(reach);
                report.unmapped_mergetags = mergetags
                    .iter()
                    .map(|m| MergetagReport {
                        commit: m.commit.to_string(),
                        target: m.target.to_string(),
                        reached_from: (&m.reached_from).into(),
                    })
                    .collect();
            }
            ConvertError::Refused(Refusal::MissingRefTarget { refname, id }) => {
                report.missing_ref_target = Some(RefReport {
                    name: refname.clone(),
                    target: id.to_string(),
                });
            }
            ConvertError::Corrupt(corrupt) => report.object = corrupt_object(corrupt),
            _ => {}
        }
        report
    }
}

/// Each (missing object, referencing object, role) once, sorted.
fn missing_objects(missing: &[MissingReference]) -> Vec<MissingObjectReport> {
    let mut refs: Vec<&MissingReference> = missing.iter().collect();
    refs.sort_by_key(|m| (m.missing, m.holder, role_name(m.role)));
    refs.dedup_by_key(|m| (m.missing, m.holder, role_name(m.role)));
    refs.into_iter()
        .map(|m| MissingObjectReport {
            id: m.missing.to_string(),
            referenced_by: m.holder.to_string(),
            referenced_by_type: m.holder_kind.as_str(),
            role: role_name(m.role),
            reached_from: (&m.reached_from).into(),
        })
        .collect()
}

fn unmapped_gitlink(sub: &UnmappedSubmodule) -> UnmappedGitlinkReport {
    UnmappedGitlinkReport {
        path: sub.path.clone(),
        commits: sub.commits.iter().map(ToString::to_string).collect(),
        pinned_by: sub.pinned_by.map(|c| c.to_string()),
        reached_from: (&sub.reached_from).into(),
    }
}

/// The object, type and file a corrupt-input error names, when it names one.
fn corrupt_object(corrupt: &CorruptInput) -> Option<ObjectReport> {
    let (id, kind, file) = match corrupt {
        CorruptInput::Collision { id, file, .. } => (id, None, Some(file)),
        CorruptInput::HashMismatch { expected, file, .. } => (expected, None, Some(file)),
        CorruptInput::NotDecoded { id } | CorruptInput::ReferenceCycle { id } => (id, None, None),
        CorruptInput::Malformed { id, kind, .. } | CorruptInput::Translate { id, kind, .. } => {
            (id, Some(kind.as_str()), None)
        }
        CorruptInput::SourceMapDisagrees { id, kind, map, .. } => {
            return Some(ObjectReport {
                id: id.to_string(),
                kind: Some(kind.as_str()),
                file: Some(map.display().to_string()),
            });
        }
        CorruptInput::Pack(_) | CorruptInput::Loose(_) | CorruptInput::SourceMap { .. } => {
            return None;
        }
    };
    Some(ObjectReport {
        id: id.to_string(),
        kind,
        file: file.cloned(),
    })
}
