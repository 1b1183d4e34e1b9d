//! Checking a repository against its statements: every statement's
//! signature (through `git verify-tag`, so with git's own trust settings:
//! `gpg.ssh.allowedSignersFile`, the keyring), the links between them, and
//! the newest statement against the repository as it is now, which is
//! worked out again from its refs, packs and map (`collect.rs`) and
//! compared field by field. Each difference names the ref, the map or the
//! pack it is about.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::AttestError;
use super::chain::read_chain;
use super::collect::collect;
use super::git::{Git, stderr_text};
use super::statement::{StatedRef, Statement};
use super::subject::{SourceStatement, Subject};
use crate::hash::ObjectId;
use crate::refs::rehash_refs::{ATTESTATION, attestation_of};

/// How to check.
#[derive(Clone, Debug, Default)]
pub struct CheckOptions {
    /// Check the signatures (runs `git verify-tag` on every statement).
    pub signatures: bool,
    /// `gpg.ssh.allowedSignersFile` for the signature checks, instead of
    /// the repository's or the user's setting.
    pub allowed_signers: Option<PathBuf>,
}

/// What the check found.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    /// The newest statement's tag; `None` when the repository has none.
    pub tag: Option<ObjectId>,
    /// How many statements the chain holds.
    pub statements: usize,
    /// What git said of the newest statement's signature when it verified.
    pub signer: Option<String>,
    /// Statements that are not what they must be: unsigned, a signature
    /// that does not verify, a message that is no statement, a broken link.
    pub problems: Vec<String>,
    /// How the repository differs from its newest statement.
    pub changes: Vec<String>,
}

/// Checks `subject` against its statements.
pub fn check(subject: &Subject, opts: &CheckOptions) -> Result<Checked, AttestError> {
    let Some(newest) = attestation_of(&subject.git_dir, subject.format)? else {
        return Ok(Checked::default());
    };
    let mut git = Git::new(&subject.git_dir);
    if let Some(file) = &opts.allowed_signers {
        git = git.with_config("gpg.ssh.allowedSignersFile", &file.display().to_string());
    }
    let chain = read_chain(&git, subject.format, &newest)?;
    let mut checked = Checked {
        tag: Some(newest),
        statements: chain.len(),
        ..Default::default()
    };
    for (n, tag) in chain.iter().enumerate() {
        let what = if n == 0 {
            format!("{ATTESTATION} (tag {})", tag.id)
        } else {
            format!("statement {} back (tag {})", n, tag.id)
        };
        if let Err(reason) = &tag.statement {
            checked.problems.push(format!(
                "{what}: its message is not a git-rehash statement: {reason}"
            ));
        }
        if let Some(problem) = tag.link_problem(subject.format) {
            checked.problems.push(format!("{what}: {problem}"));
        }
        if !opts.signatures {
            continue;
        }
        if !tag.signed {
            checked.problems.push(format!("{what}: it is not signed"));
            continue;
        }
        let out = git.output(&["verify-tag", &tag.id.to_hex()])?;
        let said = stderr_text(&out);
        if !out.status.success() {
            checked.problems.push(format!(
                "{what}: its signature does not verify ({}): {}",
                out.status,
                one_line(&said)
            ));
        } else if n == 0 {
            checked.signer = Some(verdict(&said));
        }
    }
    if let Ok(stated) = &chain[0].statement {
        let maps = subject.open_maps()?;
        let now = collect(subject, &maps)?;
        checked.changes = differences(stated, &now, subject);
    }
    Ok(checked)
}

/// git's verdict on a good signature: its line that says so.
fn verdict(said: &str) -> String {
    said.lines()
        .find(|l| l.contains("Good"))
        .or_else(|| said.lines().rev().find(|l| !l.trim().is_empty()))
        .unwrap_or("signature verified")
        .trim()
        .to_string()
}

fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// How `now` differs from `stated`, field by field.
pub fn differences(stated: &Statement, now: &Statement, subject: &Subject) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = |name: &str, stated: String, now: String| {
        if stated != now {
            out.push(format!(
                "{name}: the statement says {stated}, the repository has {now}"
            ));
        }
    };
    field("direction", stated.direction.clone(), now.direction.clone());
    if subject.run.is_some() {
        field("tool", stated.tool.clone(), now.tool.clone());
        let json = |o: &BTreeMap<String, serde_json::Value>| serde_json::json!(o).to_string();
        field("options", json(&stated.options), json(&now.options));
    }
    let map = |m: &super::statement::StatedMap| {
        format!(
            "{} rows ({}) hashing to {}, created {}, gitlinks {}",
            m.rows,
            m.objects
                .iter()
                .map(|(k, n)| format!("{n} {k}s"))
                .collect::<Vec<_>>()
                .join(", "),
            m.sha256,
            serde_json::json!(m.created),
            m.gitlinks_sha256.as_deref().unwrap_or("none")
        )
    };
    field("map", map(&stated.map), map(&now.map));
    field(
        "packs",
        format!("{:?}", stated.packs),
        format!("{:?}", now.packs),
    );
    if subject.source_statement != SourceStatement::Unknown {
        let text = |s: &Option<String>| s.clone().unwrap_or_else(|| "none".into());
        field(
            "source_attestation",
            text(&stated.source_attestation),
            text(&now.source_attestation),
        );
    }
    out.extend(ref_differences(&stated.refs, &now.refs));
    out
}

fn ref_differences(stated: &[StatedRef], now: &[StatedRef]) -> Vec<String> {
    let by_name = |refs: &[StatedRef]| -> BTreeMap<String, String> {
        refs.iter()
            .map(|r| (r.name.clone(), r.describe()))
            .collect()
    };
    let (stated, now) = (by_name(stated), by_name(now));
    let mut out = Vec::new();
    for (name, was) in &stated {
        match now.get(name) {
            None => out.push(format!(
                "ref {name}: the statement says {was}, the repository has no such ref"
            )),
            Some(is) if is != was => out.push(format!(
                "ref {name}: the statement says {was}, the repository has {is}"
            )),
            Some(_) => {}
        }
    }
    for (name, is) in &now {
        if !stated.contains_key(name) {
            out.push(format!(
                "ref {name}: the repository has {is}, the statement names no such ref"
            ));
        }
    }
    out
}
