//! What `git-rehash convert` says on stderr when it finished: one line of
//! counts, then notes and warnings about what the run kept, dropped or
//! named through submodule maps, and where the map is.

use git_rehash::convert::ConvertOutcome;

pub fn print_summary(outcome: &ConvertOutcome) {
    let kinds: Vec<String> = outcome
        .objects_by_kind
        .iter()
        .map(|(k, n)| format!("{n} {k}s"))
        .collect();
    let kinds = if kinds.is_empty() {
        "nothing new".to_string()
    } else {
        kinds.join(", ")
    };
    eprintln!(
        "{} {} of {} objects ({}), {:.1} MB inflated -> {:.1} MB in {} pack(s), {} refs written, {} deleted, {} reflog entries dropped, in {:.1}s",
        if outcome.continued {
            "updated:"
        } else {
            "converted"
        },
        outcome.objects_converted,
        outcome.objects_listed,
        kinds,
        outcome.bytes_inflated as f64 / 1e6,
        outcome.pack_size as f64 / 1e6,
        outcome.packs_written,
        outcome.refs_written,
        outcome.refs_deleted,
        outcome.reflog_entries_dropped,
        outcome.elapsed.as_secs_f64()
    );
    if outcome.objects_known > 0 {
        let interrupted = match outcome.objects_carried {
            0 => String::new(),
            n => format!(", {n} of them written by an interrupted run and folded now"),
        };
        eprintln!(
            "note: {} objects were converted by earlier runs{interrupted}",
            outcome.objects_known
        );
    }
    if let Some(selection) = &outcome.selection {
        eprintln!(
            "note: ref selection {}: {} of SOURCE's refs left out, and {} objects no selected ref reaches",
            selection.command_line(),
            outcome.refs_left_out,
            outcome.objects_left_out
        );
    }
    if let Some(note) = &outcome.selection_note {
        eprintln!("note: {note}");
    }
    if outcome.objects_shared > 0 {
        eprintln!(
            "note: {} objects are the pool's (--shared-with), borrowed through objects/info/alternates",
            outcome.objects_shared
        );
    }
    if outcome.objects_restored > 0 {
        eprintln!(
            "note: {} objects were scanned by the interrupted run (taken from its checkpoint)",
            outcome.objects_restored
        );
    }
    if outcome.verbatim_mergetag_commits > 0 {
        eprintln!(
            "note: {} commit(s) keep a mergetag verbatim: it names an object the repository does not have (--unmapped-mergetags=verbatim; recorded in the map)",
            outcome.verbatim_mergetag_commits
        );
    }
    for (name, count) in &outcome.unknown_headers {
        eprintln!("note: copied unknown commit header '{name}' verbatim in {count} commit(s)");
    }
    for name in &outcome.pseudo_refs_dropped {
        eprintln!("note: dropped {name}: it names an object that is not in the repository");
    }
    for sub in &outcome.submodules {
        eprintln!(
            "submodule {}: {} {} new object(s) of {} -> {}",
            sub.name,
            if sub.outcome.continued {
                "updated,"
            } else {
                "converted,"
            },
            sub.outcome.objects_converted,
            sub.outcome.objects_listed,
            sub.outcome.dest.display()
        );
    }
    let interop = &outcome.interop;
    if interop.gitlinks_mapped > 0 {
        eprintln!(
            "note: {} submodule commit(s) named through submodule maps",
            interop.gitlinks_mapped
        );
    }
    if interop.gitlink_surrogates > 0 {
        eprintln!(
            "warning: {} submodule commit(s) got SURROGATE names (--unmapped-gitlinks=placeholder); they are listed in {}",
            interop.gitlink_surrogates,
            git_rehash::repo::dest_layout::gitlinks(&outcome.dest).display()
        );
    }
    for notes in &interop.notes_rekeyed {
        eprintln!(
            "notes: {} re-keyed: {} note(s) now named by SHA-256 in commit {}{}",
            notes.name,
            notes.notes,
            notes.commit,
            if notes.kept_unmapped > 0 {
                format!(
                    " ({} note(s) on objects SOURCE does not have kept at their SHA-1 paths)",
                    notes.kept_unmapped
                )
            } else {
                String::new()
            }
        );
    }
    if let Some(n) = interop.compat_map_pairs {
        eprintln!(
            "git compat map: {n} pairs in objects/loose-object-idx, compatObjectFormat = sha1"
        );
    }
    eprintln!("map: {}", outcome.map_path.display());
}
