//! The ref selection a run converts with, and what DEST records of it
//! (`IdMap::ref_selection`).
//!
//! DEST holds what the recorded selection reached; a conversion never
//! takes an object out of DEST. So a later run that names no selection
//! keeps the recorded one; one that names another is accepted when it
//! keeps every ref of SOURCE the recorded one keeps (DEST then holds what
//! the new one reaches, with a note saying so), and refused otherwise,
//! naming the refs it would leave out: their objects are in DEST already.
//! The same holds for a DEST that holds every object: any selection would
//! leave some of DEST's objects outside it.

use std::path::Path;

use crate::convert::error::{ConvertError, DestState, Refusal};
use crate::idmap::IdMap;
use crate::refs::{RefSelection, SourceRefs};

/// The selection a run converts with, and a note when it changed.
#[derive(Debug, Default)]
pub struct Settled {
    pub selection: Option<RefSelection>,
    pub note: Option<String>,
}

/// The selection of this run: `asked` (the options'), or the one `map`
/// records when DEST holds an earlier run's work (`continued`; `None`
/// for a first run). Refused when it leaves out `HEAD`'s branch or every
/// ref, or narrows what DEST holds.
pub fn settle(
    asked: Option<&RefSelection>,
    dest: &Path,
    map: Option<&IdMap>,
    converted_before: bool,
    refs: &SourceRefs,
) -> Result<Settled, ConvertError> {
    let before = match map {
        Some(map) => map.ref_selection()?,
        None => None,
    };
    let mut note = None;
    let selection = match (asked, before) {
        (None, before) => before,
        (Some(asked), _) if !converted_before => Some(asked.clone()),
        (Some(asked), Some(before)) if *asked == before => Some(before),
        (Some(asked), Some(before)) => {
            let kept = refs.kept_ref_names(asked);
            let lost: Vec<String> = refs
                .kept_ref_names(&before)
                .into_iter()
                .filter(|name| kept.binary_search(name).is_err())
                .collect();
            if !lost.is_empty() {
                return Err(narrowed(dest, &before.command_line(), asked, &lost));
            }
            note = Some(format!(
                "the ref selection changed from {} to {}, which keeps every ref the former \
                 kept: DEST now holds what the new one reaches, and records it",
                before.command_line(),
                asked.command_line()
            ));
            Some(asked.clone())
        }
        (Some(asked), None) => {
            return Err(DestState::Mismatch {
                path: dest.to_path_buf(),
                reason: format!(
                    "holds every object of SOURCE (converted without a ref selection), and a \
                     conversion cannot take objects out of DEST, so it cannot hold only what \
                     {} reaches; run without --refs, --exclude-refs and --reachable-only",
                    asked.command_line()
                ),
            }
            .into());
        }
    };
    if let Some(selection) = &selection {
        check_refs(selection, refs)?;
    }
    Ok(Settled { selection, note })
}

/// Refuses a selection that leaves out every ref, or `HEAD`'s branch.
fn check_refs(selection: &RefSelection, refs: &SourceRefs) -> Result<(), ConvertError> {
    let all = refs.effective_refs().len();
    if all > 0 && refs.kept_ref_names(selection).is_empty() && refs.head.id().is_none() {
        return Err(Refusal::SelectionKeepsNothing {
            refs: all,
            selection: selection.command_line(),
        }
        .into());
    }
    if let Some(branch) = refs.head_left_out(selection) {
        return Err(Refusal::HeadLeftOut {
            branch,
            selection: selection.command_line(),
        }
        .into());
    }
    Ok(())
}

/// The refusal of a selection that leaves out refs whose objects DEST holds.
fn narrowed(dest: &Path, before: &str, asked: &RefSelection, lost: &[String]) -> ConvertError {
    const SHOWN: usize = 3;
    let mut names = lost[..lost.len().min(SHOWN)].join(", ");
    if lost.len() > SHOWN {
        names.push_str(&format!(" and {} more", lost.len() - SHOWN));
    }
    DestState::Mismatch {
        path: dest.to_path_buf(),
        reason: format!(
            "was converted with the ref selection {before}, which keeps {names}; this run's \
             ({}) leaves {} out, but a conversion cannot take objects out of DEST. Run with \
             {before} (or with no selection: later runs keep the recorded one), or with a \
             selection that keeps {}",
            asked.command_line(),
            if lost.len() == 1 { "it" } else { "them" },
            if lost.len() == 1 { "it" } else { "them too" },
        ),
    }
    .into()
}
