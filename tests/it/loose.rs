//! Loose objects read by the library against the objects the real git
//! wrote, with `git cat-file --batch` as the oracle.

use crate::support::history::deltified_history;
use crate::support::library::{HashKind, list_loose, loose_path, read_loose, sha1_object_id};
use crate::support::repo_files::{all_object_ids, cat_file_batch};

#[test]
fn loose_objects_match_git() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    deltified_history(repo);
    let objects = repo.join(".git/objects");
    std::fs::write(objects.join("tmp_obj_abcdef"), b"junk").unwrap();
    std::fs::create_dir_all(objects.join("ab")).unwrap();
    std::fs::write(objects.join("ab/tmp_obj_x"), b"junk").unwrap();
    let ids = list_loose(&objects, HashKind::Sha1).unwrap();
    let mut want = all_object_ids(repo, HashKind::Sha1);
    want.sort();
    assert_eq!(ids, want);
    let oracle = cat_file_batch(repo, &ids);
    for id in &ids {
        assert!(loose_path(&objects, id).is_file());
        let (kind, body) = read_loose(&objects, id).unwrap();
        assert_eq!(kind.as_str(), oracle[id].0);
        assert_eq!(body, oracle[id].1);
        assert_eq!(sha1_object_id(kind, &body).unwrap(), *id);
    }
    // A missing object names its path.
    let missing = read_loose(&objects, &HashKind::Sha1.null_id()).unwrap_err();
    assert!(missing.to_string().contains("0000000000"), "{missing}");
}
