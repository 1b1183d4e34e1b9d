//! Signing a statement as `git tag -s` signs a tag, with the user's own
//! setup (`user.signingKey`, `gpg.format` openpgp, x509 or ssh, the
//! agents), and putting the tag into the repository.
//!
//! `git tag` can only create `refs/tags/<name>`, and a statement must not
//! appear as a tag of the repository even for a moment. So git signs in a
//! scratch repository of the same object format that borrows the
//! repository's objects (`objects/info/alternates`) and includes its
//! config (`include.path`, so settings made in the repository apply);
//! the tag object is then read back, its name checked against its bytes,
//! and stored in the repository as a loose object (durably), before the
//! caller moves `refs/rehash/attestation` to it (`git update-ref`, under
//! git's lock, only if the ref still names the statement it was made
//! after).

use std::fs;
use std::path::Path;

use super::AttestError;
use super::git::Git;
use crate::durable::{self, PathError};
use crate::hash::{HashKind, ObjectId};
use crate::loose::write_loose_named;
use crate::object::{ObjectKind, object_id};
use crate::refs::rehash_refs::ATTESTATION;

/// The name in the tag's `tag` header.
pub const TAG_NAME: &str = "rehash/attestation";

/// A signed tag, not yet in the repository.
pub struct SignedTag {
    pub id: ObjectId,
    pub body: Vec<u8>,
}

/// Signs `message` as a tag of `object` (an object of the repository
/// `git_dir`, of object format `format`), in the scratch repository at
/// `scratch`, which is made anew and removed again.
pub fn sign(
    git_dir: &Path,
    format: HashKind,
    scratch: &Path,
    message: &str,
    object: &ObjectId,
) -> Result<SignedTag, AttestError> {
    make_scratch(git_dir, format, scratch)?;
    let signed = sign_in(scratch, format, message, object);
    let removed = fs::remove_dir_all(scratch).map_err(|e| AttestError::io(scratch, e));
    let signed = signed?;
    removed?;
    Ok(signed)
}

fn sign_in(
    scratch: &Path,
    format: HashKind,
    message: &str,
    object: &ObjectId,
) -> Result<SignedTag, AttestError> {
    let message_file = scratch.join("STATEMENT");
    fs::write(&message_file, message).map_err(|e| AttestError::io(&message_file, e))?;
    let git = Git::new(scratch);
    git.sign(&[
        "tag".as_ref(),
        "-s".as_ref(),
        "--cleanup=verbatim".as_ref(),
        "-F".as_ref(),
        message_file.as_os_str(),
        TAG_NAME.as_ref(),
        object.to_hex().as_ref(),
    ])?;
    let refname = format!("refs/tags/{TAG_NAME}");
    let hex = git.run(&["rev-parse", "--verify", &refname])?;
    let hex = String::from_utf8_lossy(&hex).trim().to_string();
    let id = ObjectId::from_hex(format, hex.as_bytes()).ok_or_else(|| AttestError::BadTag {
        id: hex.clone(),
        reason: format!(
            "`git tag` made a tag whose name is not a {} id",
            format.name()
        ),
    })?;
    let body = git.run(&["cat-file", "tag", &hex])?;
    let named = object_id(format, ObjectKind::Tag, &body).map_err(|e| AttestError::BadTag {
        id: hex.clone(),
        reason: e.to_string(),
    })?;
    if named != id {
        return Err(AttestError::BadTag {
            id: hex,
            reason: format!("its bytes hash to {named}"),
        });
    }
    Ok(SignedTag { id, body })
}

/// A bare repository of `format` that borrows `git_dir`'s objects and
/// includes its config.
fn make_scratch(git_dir: &Path, format: HashKind, scratch: &Path) -> Result<(), AttestError> {
    if scratch.exists() {
        // What a killed run left.
        fs::remove_dir_all(scratch).map_err(|e| AttestError::io(scratch, e))?;
    }
    for dir in ["objects/info", "refs/heads", "refs/tags"] {
        let path = scratch.join(dir);
        fs::create_dir_all(&path).map_err(|e| AttestError::io(&path, e))?;
    }
    let objects = git_dir.join("objects");
    let files = [
        ("HEAD", "ref: refs/heads/main\n".to_string()),
        (
            "objects/info/alternates",
            format!("{}\n", objects.display()),
        ),
        (
            "config",
            format!(
                "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\
                 \tobjectformat = {}\n[include]\n\tpath = {}\n",
                format.name(),
                quoted(&git_dir.join("config").display().to_string())
            ),
        ),
    ];
    for (name, text) in files {
        let path = scratch.join(name);
        fs::write(&path, text).map_err(|e| AttestError::io(&path, e))?;
    }
    Ok(())
}

/// A config value in double quotes, as git reads it back.
fn quoted(value: &str) -> String {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{escaped}\"")
}

/// Stores `tag` in the repository's objects (durably), then, after
/// `before_ref` (which records it where the repository's tools look),
/// moves `refs/rehash/attestation` from `old` to it.
pub fn install(
    git_dir: &Path,
    tag: &SignedTag,
    old: Option<ObjectId>,
    before_ref: impl FnOnce(&ObjectId) -> Result<(), AttestError>,
) -> Result<(), AttestError> {
    let objects = git_dir.join("objects");
    write_loose_named(&objects, tag.id, ObjectKind::Tag, &tag.body)?;
    before_ref(&tag.id)?;
    let old = old.unwrap_or(tag.id.kind().null_id()).to_hex();
    Git::new(git_dir).run(&[
        "update-ref",
        "-m",
        "git-rehash attest",
        ATTESTATION,
        &tag.id.to_hex(),
        &old,
    ])?;
    // `git update-ref` does not flush the ref's directory.
    sync_refs(git_dir)
}

fn sync_refs(git_dir: &Path) -> Result<(), AttestError> {
    let dir = ["refs/rehash", "reftable", "."]
        .iter()
        .map(|d| git_dir.join(d))
        .find(|d| d.is_dir())
        .expect("the repository itself is a directory");
    durable::sync_dir(&dir).map_err(|e: PathError| AttestError::Io(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_paths_are_quoted_as_git_reads_them() {
        assert_eq!(quoted("/a/b c/config"), "\"/a/b c/config\"");
        assert_eq!(quoted("/a\\\"b"), "\"/a\\\\\\\"b\"");
    }
}
