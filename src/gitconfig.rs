//! A reader for git's config file syntax, enough to learn a repository's
//! format (`core.repositoryformatversion`, `extensions.*`) and remotes.
//!
//! Mirrors the grammar of git's config.c: `[section]`, `[section "sub"]`,
//! `[section.sub]` (legacy, lowercased), `key = value`, a bare `key`
//! (boolean true), `#`/`;` comments, double quotes, backslash escapes and
//! line continuations. Section and key names are case-insensitive,
//! subsection names are not. `include.path` is not followed: the keys read
//! here (format version, extensions) belong in the repository's own file.

use std::path::{Path, PathBuf};

/// Every `name = value` pair of a config file, in file order. Names are
/// `section.key` or `section.subsection.key` with section and key lowercased.
#[derive(Debug, Default, Clone)]
pub struct GitConfig {
    entries: Vec<(String, String)>,
}

/// A config file that does not parse.
#[derive(Debug, thiserror::Error)]
#[error("bad config line {line} in {path}: {reason}")]
pub struct ConfigError {
    pub path: PathBuf,
    pub line: usize,
    pub reason: &'static str,
}

impl GitConfig {
    /// Reads `path`; a missing file is an empty config.
    pub fn read(path: &Path) -> Result<Self, std::io::Error> {
        match std::fs::read(path) {
            Ok(bytes) => Self::parse(&bytes, path).map_err(std::io::Error::other),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(e),
        }
    }

    pub fn parse(text: &[u8], path: &Path) -> Result<Self, ConfigError> {
        let text = String::from_utf8_lossy(text);
        let mut entries = Vec::new();
        let mut section = String::new();
        let mut lines = text.split('\n').enumerate().peekable();
        while let Some((n, raw)) = lines.next() {
            let err = |reason| ConfigError {
                path: path.to_path_buf(),
                line: n + 1,
                reason,
            };
            let line = raw.trim_start();
            if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
                continue;
            }
            let mut rest = line;
            if let Some(after) = rest.strip_prefix('[') {
                let close =
                    find_section_end(after).ok_or_else(|| err("unterminated section header"))?;
                section =
                    parse_section(&after[..close]).ok_or_else(|| err("bad section header"))?;
                rest = after[close + 1..].trim_start();
                if rest.is_empty() || rest.starts_with('#') || rest.starts_with(';') {
                    continue;
                }
            }
            if section.is_empty() {
                return Err(err("key outside of any section"));
            }
            let key_end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(rest.len());
            let key = rest[..key_end].to_ascii_lowercase();
            if key.is_empty() {
                return Err(err("bad key name"));
            }
            let after_key = rest[key_end..].trim_start();
            let value = if let Some(v) = after_key.strip_prefix('=') {
                let mut logical = v.to_string();
                // A value ending in an unescaped backslash continues on the next line.
                while ends_with_continuation(&logical) {
                    logical.pop();
                    match lines.next() {
                        Some((_, next)) => logical.push_str(next),
                        None => break,
                    }
                }
                parse_value(&logical)
                    .ok_or_else(|| err("bad value (unterminated quote or escape)"))?
            } else if after_key.is_empty()
                || after_key.starts_with('#')
                || after_key.starts_with(';')
            {
                "true".to_string()
            } else {
                return Err(err("expected '=' after key"));
            };
            entries.push((format!("{section}.{key}"), value));
        }
        Ok(GitConfig { entries })
    }

    /// The last value of `name` (git's "last one wins"), name as `section.key`
    /// or `section.sub.key` with section and key in lowercase.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// All entries, in file order.
    pub fn entries(&self) -> &[(String, String)] {
        &self.entries
    }
}

fn find_section_end(s: &str) -> Option<usize> {
    let mut in_quote = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_quote => escaped = true,
            '"' => in_quote = !in_quote,
            ']' if !in_quote => return Some(i),
            _ => {}
        }
    }
    None
}

fn parse_section(header: &str) -> Option<String> {
    let header = header.trim();
    if let Some(q) = header.find('"') {
        let name = header[..q].trim_end().to_ascii_lowercase();
        let sub = header[q + 1..].strip_suffix('"')?;
        let mut out = String::new();
        let mut chars = sub.chars();
        while let Some(c) = chars.next() {
            out.push(if c == '\\' { chars.next()? } else { c });
        }
        Some(format!("{name}.{out}"))
    } else {
        // Legacy `[section.sub]` form: git lowercases the whole thing.
        Some(header.to_ascii_lowercase())
    }
}

fn ends_with_continuation(s: &str) -> bool {
    let trailing = s.trim_end_matches('\r');
    let backslashes = trailing.chars().rev().take_while(|&c| c == '\\').count();
    backslashes % 2 == 1 && trailing.len() == s.len()
}

fn parse_value(v: &str) -> Option<String> {
    let mut out = String::new();
    let mut pending_space = String::new();
    let mut in_quote = false;
    let mut chars = v.trim_start().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push_str(&pending_space);
                pending_space.clear();
                in_quote = !in_quote;
            }
            '#' | ';' if !in_quote => break,
            '\\' => {
                out.push_str(&pending_space);
                pending_space.clear();
                match chars.next()? {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'b' => {
                        out.pop();
                    }
                    c @ ('"' | '\\') => out.push(c),
                    _ => return None,
                }
            }
            ' ' | '\t' | '\r' if !in_quote => pending_space.push(c),
            _ => {
                out.push_str(&pending_space);
                pending_space.clear();
                out.push(c);
            }
        }
    }
    if in_quote { None } else { Some(out) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> GitConfig {
        GitConfig::parse(s.as_bytes(), Path::new("config")).unwrap()
    }

    #[test]
    fn reads_git_init_config() {
        let c = parse(
            "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectFormat = sha256\n",
        );
        assert_eq!(c.get("core.repositoryformatversion"), Some("1"));
        assert_eq!(c.get("extensions.objectformat"), Some("sha256"));
        assert_eq!(c.get("core.bare"), Some("true"));
    }

    #[test]
    fn subsections_quotes_comments_and_last_wins() {
        let c = parse(
            "[remote \"Origin\"] url = \"a b\" # c\n[Core]\nfilemode\nx = 1\nx = 2 ; y\n[a.B]\nk=\"q\\\"t\"\n",
        );
        assert_eq!(c.get("remote.Origin.url"), Some("a b"));
        assert_eq!(c.get("core.filemode"), Some("true"));
        assert_eq!(c.get("core.x"), Some("2"));
        assert_eq!(c.get("a.b.k"), Some("q\"t"));
    }

    #[test]
    fn rejects_garbage() {
        assert!(GitConfig::parse(b"[core\nx=1\n", Path::new("c")).is_err());
        assert!(GitConfig::parse(b"x=1\n", Path::new("c")).is_err());
        assert!(GitConfig::parse(b"[c]\nx=\"open\n", Path::new("c")).is_err());
    }
}
