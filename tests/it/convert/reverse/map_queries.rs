//! The map commands on a SHA-1 DEST: `map` answers either name, and
//! `translate-text` rewrites SOURCE's SHA-256 ids into DEST's SHA-1 ones.

use crate::support::process::output_with_unread_stdin;
use crate::support::rehash::{rehash_command, rehash_map};
use crate::support::reversed::reversed_fixture;
use crate::support::sha256_fixture::sha256_repo;

#[test]
fn map_answers_either_name() {
    let (reversed, repo) = (reversed_fixture(), sha256_repo());
    let sha256 = repo.rev("main");
    let sha1 = reversed.sha1_of(&sha256);
    for id in [&sha256, &sha1, &sha256[..12].to_string()] {
        let out = rehash_map(&reversed.dest, &[id]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{sha1} {sha256} commit\n")
        );
    }
}

#[test]
fn translate_text_names_sources_ids_in_sha1() {
    let (reversed, repo) = (reversed_fixture(), sha256_repo());
    let sha256 = repo.rev("main");
    let short = &sha256[..12];
    let text = format!("Fixed in {sha256}.\nSee also {short}.\n");
    let sha1 = reversed.sha1_of(&sha256);
    let translated = output_with_unread_stdin(
        rehash_command()
            .args(["translate-text", "--repo"])
            .arg(&reversed.dest),
        text.as_bytes(),
    );
    assert!(translated.status.success());
    assert_eq!(
        String::from_utf8_lossy(&translated.stdout),
        format!("Fixed in {sha1}.\nSee also {}.\n", &sha1[..12])
    );
}
