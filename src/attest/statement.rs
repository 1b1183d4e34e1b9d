//! The statement of a conversion: the JSON message of the signed tag
//! `refs/rehash/attestation`, field by field as docs/verify.md lists
//! them. The same for either direction: both object formats are fields.
//!
//! It is written as pretty-printed JSON with the fields in a fixed order,
//! so two conversions of one SOURCE with the same options write the same
//! bytes; the tag's tagger line (time) and signature are all that differ.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::translate::SIGNATURE_STARTS;

/// The value of [`Statement::statement`]: what the message is.
pub const KIND: &str = "git-rehash conversion";

/// The layout this version writes and reads ([`Statement::version`]).
pub const VERSION: u32 = 1;

/// One statement (docs/verify.md, "The statement").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Statement {
    /// Always [`KIND`].
    pub statement: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// The git-rehash that made the repository: `git-rehash <version>`.
    pub tool: String,
    /// `<source_format>-to-<dest_format>`.
    pub direction: String,
    /// The object format of the repository converted from.
    pub source_format: String,
    /// The object format of the repository the statement is in.
    pub dest_format: String,
    /// The options that change the repository's object names or its pack.
    pub options: BTreeMap<String, serde_json::Value>,
    /// Every ref but `refs/rehash/attestation`, sorted by name; `HEAD` first.
    pub refs: Vec<StatedRef>,
    /// The map that pairs the two sides' names.
    pub map: StatedMap,
    /// The repository's packs (`pack-<checksum>`), sorted.
    pub packs: Vec<String>,
    /// The statement of the conversion that made SOURCE (its tag's id in
    /// SOURCE's format), when SOURCE has one.
    pub source_attestation: Option<String>,
    /// The statement before this one in the same repository (its tag's
    /// id, which is also this tag's `object`), if any.
    pub previous: Option<String>,
}

/// One ref of the repository and its SOURCE counterpart: a symbolic ref
/// has `symref`, any other `dest` and, when the map pairs its object with
/// one, `source`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatedRef {
    pub name: String,
    /// The ref a symbolic ref (`HEAD`) points to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symref: Option<String>,
    /// The SOURCE object the ref's object was converted from (for a
    /// commit `--rekey-notes` created, the one it stands on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The object the ref names in the repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dest: Option<String>,
}

impl StatedRef {
    /// A ref that names an object.
    pub fn direct(name: String, source: Option<String>, dest: String) -> Self {
        StatedRef {
            name,
            symref: None,
            source,
            dest: Some(dest),
        }
    }

    /// A symbolic ref.
    pub fn symbolic(name: String, target: String) -> Self {
        StatedRef {
            name,
            symref: Some(target),
            source: None,
            dest: None,
        }
    }

    /// How the ref reads, for messages: `ref: <target>` or `<dest> (from <source>)`.
    pub fn describe(&self) -> String {
        match (&self.symref, &self.dest, &self.source) {
            (Some(target), _, _) => format!("ref: {target}"),
            (None, Some(dest), Some(source)) => format!("{dest} (from {source})"),
            (None, Some(dest), None) => format!("{dest} (no SOURCE counterpart)"),
            (None, None, _) => "nothing".into(),
        }
    }

    /// Whether it is one of the two shapes above.
    fn is_well_formed(&self) -> bool {
        match &self.symref {
            Some(_) => self.source.is_none() && self.dest.is_none(),
            None => self.dest.is_some(),
        }
    }
}

/// The map, summed up.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatedMap {
    /// Rows of `git-rehash map --export`.
    pub rows: u64,
    /// The SHA-256 of `git-rehash map --export` (text format, sorted by
    /// SHA-1).
    pub sha256: String,
    /// Rows by object type.
    pub objects: BTreeMap<String, u64>,
    /// Objects the conversion made with no counterpart, by why
    /// (`rekey-notes`); statements are not counted.
    pub created: BTreeMap<String, u64>,
    /// The SHA-256 of `rehash/gitlinks.txt` (the submodule commits' pairs
    /// the trees were translated with), if there is one.
    pub gitlinks_sha256: Option<String>,
}

impl Statement {
    /// The tag message: the JSON, then a newline.
    pub fn to_message(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a statement always serialises");
        text.push('\n');
        text
    }

    /// Reads a statement from a tag message (the signature, if any, is
    /// cut off first).
    pub fn from_message(message: &[u8]) -> Result<Statement, String> {
        let text = std::str::from_utf8(strip_signature(message))
            .map_err(|_| "the message is not UTF-8".to_string())?;
        let statement: Statement = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if statement.statement != KIND || statement.version != VERSION {
            return Err(format!(
                "it is a {:?} statement of version {}, this git-rehash reads {KIND:?} version {VERSION}",
                statement.statement, statement.version
            ));
        }
        if let Some(bad) = statement.refs.iter().find(|r| !r.is_well_formed()) {
            return Err(format!(
                "ref {} has neither exactly a symref nor a dest",
                bad.name
            ));
        }
        Ok(statement)
    }
}

/// `message` up to the first line that opens a signature (one of those
/// git appends to a tag's message: OpenPGP, X.509, SSH).
pub fn strip_signature(message: &[u8]) -> &[u8] {
    let mut start = 0;
    while start < message.len() {
        let line = &message[start..];
        if SIGNATURE_STARTS.iter().any(|s| line.starts_with(s)) {
            return &message[..start];
        }
        start += line
            .iter()
            .position(|&b| b == b'\n')
            .map_or(line.len(), |p| p + 1);
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Statement {
        Statement {
            statement: KIND.into(),
            version: VERSION,
            tool: "git-rehash 0.1.0".into(),
            direction: "sha1-to-sha256".into(),
            source_format: "sha1".into(),
            dest_format: "sha256".into(),
            options: BTreeMap::from([("window".to_string(), serde_json::json!(250))]),
            refs: vec![
                StatedRef::symbolic("HEAD".into(), "refs/heads/main".into()),
                StatedRef::direct("refs/heads/main".into(), Some("aa".into()), "bb".into()),
                StatedRef::direct("refs/heads/new".into(), None, "cc".into()),
            ],
            map: StatedMap {
                rows: 3,
                sha256: "dd".into(),
                objects: BTreeMap::from([("blob".to_string(), 3)]),
                created: BTreeMap::new(),
                gitlinks_sha256: None,
            },
            packs: vec!["pack-ee".into()],
            source_attestation: None,
            previous: None,
        }
    }

    #[test]
    fn a_signed_message_reads_back_as_written() {
        let statement = sample();
        let message = statement.to_message();
        assert!(message.contains("\"symref\": \"refs/heads/main\""));
        assert_eq!(message.matches("\"source\"").count(), 1);
        let signed =
            format!("{message}-----BEGIN SSH SIGNATURE-----\nxyz\n-----END SSH SIGNATURE-----\n");
        let read = Statement::from_message(signed.as_bytes()).unwrap();
        assert_eq!(read, statement);
        assert_eq!(read.refs[1].describe(), "bb (from aa)");
        assert_eq!(read.refs[2].describe(), "cc (no SOURCE counterpart)");
    }

    #[test]
    fn other_json_and_unknown_fields_are_refused() {
        assert!(Statement::from_message(b"{}").is_err());
        let mut statement = sample();
        statement.statement = "something else".into();
        let err = Statement::from_message(statement.to_message().as_bytes()).unwrap_err();
        assert!(err.contains("something else"), "{err}");
        let extra = sample().to_message().replacen('{', "{\n  \"extra\": 1,", 1);
        assert!(Statement::from_message(extra.as_bytes()).is_err());
        let mut statement = sample();
        statement.refs[0].dest = Some("aa".into());
        assert!(Statement::from_message(statement.to_message().as_bytes()).is_err());
    }
}
