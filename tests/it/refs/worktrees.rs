//! Linked worktrees of SOURCE (`git worktree add`): their HEADs, the
//! reflogs of those, and their own refs reach DEST under
//! `refs/worktree-heads/<name>` and `refs/worktree-refs/<name>/`, so a
//! commit only a worktree's HEAD names survives `git gc` in DEST; in a
//! repository of either ref format.

use crate::support::file_tree::{copy_dir, tree_checksums};
use crate::support::git::git;
use crate::support::history::commit_file;
use crate::support::id_translation::translate_ids;
use crate::support::rehash::{rehash_convert_ok, rehash_export_map, rehash_verify_ok};
use crate::support::scratch::scratch_dir;

use super::reftable::{REFLOG, translated_reflog};

#[test]
fn linked_worktrees_heads_refs_and_reflogs_are_kept() {
    for format in ["files", "reftable"] {
        let scratch = scratch_dir(&format!("worktrees-{format}"));
        let root = scratch.join("source");
        std::fs::create_dir(&root).expect("mkdir");
        let main = root.join("main");
        let format_arg = format!("--ref-format={format}");
        git(&root, &["init", "-q", "-b", "main", &format_arg, "main"]);
        commit_file(&main, "f", "1\n", "one");
        // A detached worktree with a commit nothing else names, and a ref
        // of its own; a worktree on a branch; one on a branch yet unborn.
        let add_worktree = |name: &str, how: &[&str]| {
            let path = root.join(name);
            let mut args = vec!["worktree", "add", "-q"];
            args.extend(how);
            args.push(path.to_str().unwrap());
            git(&main, &args);
            path
        };
        let detached = add_worktree("detached", &["--detach"]);
        let lonely = commit_file(&detached, "f", "2\n", "only in a worktree");
        git(&detached, &["update-ref", "refs/worktree/mine", "HEAD"]);
        let onbranch = add_worktree("onbranch", &["-b", "feat"]);
        commit_file(&onbranch, "g", "3\n", "on feat");
        add_worktree("orphan", &["--orphan", "-b", "new"]);

        let before = tree_checksums(&root);
        let dest = scratch.join("dest.git");
        // Given a linked worktree, the conversion is of the whole repository.
        rehash_convert_ok(&onbranch, &dest, &["--quiet"]);
        assert_eq!(before, tree_checksums(&root), "SOURCE was modified");
        let map = rehash_export_map(&dest);

        let refs = git(
            &dest,
            &[
                "for-each-ref",
                "--format=%(refname) %(objectname) %(symref)",
            ],
        );
        let expected = translate_ids(
            &map,
            &format!(
                "refs/heads/feat {feat} \nrefs/heads/main {main_id} \n\
                 refs/worktree-heads/detached {lonely} \n\
                 refs/worktree-heads/onbranch {feat} refs/heads/feat\n\
                 refs/worktree-refs/detached/worktree/mine {lonely} ",
                feat = git(&main, &["rev-parse", "feat"]),
                main_id = git(&main, &["rev-parse", "main"]),
            ),
        );
        assert_eq!(refs, expected, "{format}");
        for (worktree, name) in [(&detached, "detached"), (&onbranch, "onbranch")] {
            let dest_ref = format!("refs/worktree-heads/{name}");
            let want = translated_reflog(&map, &git(worktree, &["reflog", "show", REFLOG, "HEAD"]))
                .replace("\0HEAD@{", &format!("\0{dest_ref}@{{"));
            assert_eq!(git(&dest, &["reflog", "show", REFLOG, &dest_ref]), want);
        }
        git(&dest, &["fsck", "--strict", "--no-progress"]);
        rehash_verify_ok(&dest, &main);

        // What only a worktree's HEAD names survives a gc in DEST (whose
        // reflogs, dated 2023, gc expires).
        let collected = scratch.join("collected.git");
        copy_dir(&dest, &collected);
        git(&collected, &["gc", "-q", "--prune=now"]);
        let lonely_256 = translate_ids(&map, &lonely);
        git(&collected, &["cat-file", "-e", &lonely_256]);
    }
}
