//! docs/architecture.md read as a map of src/: the paths it names, each
//! with the folder it is named in, and the order of the layers.
//!
//! How the map is written, and so read here:
//! - A heading that names a folder in backquotes (`convert/`) makes that
//!   folder the place the names below it are relative to, up to the next
//!   heading; under any other heading names are relative to src/.
//! - In a fenced block, a line that starts at its first column is an entry;
//!   its head is its first word. A head that is one folder (`pack/data/`)
//!   is the place its entry's names are relative to.
//! - Under a heading that says "bottom up", the heads of one folder or
//!   file directly in the heading's place (`hash/`, `bytes.rs`; not
//!   `pack/data/`) are the layers of that place, lowest first.
//! - A name is a run of path characters ending in `.rs` (a file) or `/` (a
//!   folder). It stands for the path under its place that ends with it,
//!   else for one anywhere under src/ (`cli/exit_class.rs` named in the
//!   conversion's section). A leading `src/` is dropped; a pattern
//!   (`*_cmd.rs`) is no name.

use std::path::Path;

/// One name of a path in the doc.
pub struct Mention {
    pub name: String,
    /// The folder it is named in, relative to src/ (`""` for src/ itself).
    pub place: String,
    /// Whether it is the head of an entry in a block.
    pub head: bool,
    pub line: usize,
}

pub struct ArchitectureDoc {
    pub mentions: Vec<Mention>,
    /// Each place's layers, lowest first.
    pub layerings: Vec<Layering>,
}

/// The order of the layers of one place (src/ itself, `convert/`).
#[derive(Debug, PartialEq)]
pub struct Layering {
    /// Relative to src/, `""` for src/ itself.
    pub place: String,
    /// Folders (`hash/`) and files (`bytes.rs`) directly in `place`.
    pub layers: Vec<String>,
}

pub const DOC: &str = "docs/architecture.md";

impl ArchitectureDoc {
    pub fn read() -> ArchitectureDoc {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(DOC);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        parse(&text)
    }
}

fn parse(text: &str) -> ArchitectureDoc {
    let mut doc = ArchitectureDoc {
        mentions: Vec::new(),
        layerings: Vec::new(),
    };
    let mut section_place = String::new();
    let mut in_layers = false;
    let mut in_block = false;
    let mut entry_place = String::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.starts_with("```") {
            in_block = !in_block;
            entry_place = section_place.clone();
            continue;
        }
        if !in_block && line.starts_with('#') {
            section_place = heading_place(line);
            in_layers = line.contains("bottom up");
            if in_layers {
                doc.layerings.push(Layering {
                    place: section_place.clone(),
                    layers: Vec::new(),
                });
            }
            continue;
        }
        let mut rest = line;
        if in_block && !line.starts_with(char::is_whitespace) && !line.is_empty() {
            let head = line.split_whitespace().next().unwrap();
            rest = &line[head.len()..];
            entry_place = section_place.clone();
            let head_names = names(head);
            if let [name] = head_names.as_slice()
                && name == head
            {
                if name.ends_with('/') {
                    entry_place = format!("{section_place}{name}");
                }
                if in_layers && !name.trim_end_matches('/').contains('/') {
                    let layering = doc.layerings.last_mut().expect("pushed at the heading");
                    layering.layers.push(name.clone());
                }
            }
            for name in head_names {
                doc.mentions.push(Mention {
                    name,
                    place: section_place.clone(),
                    head: true,
                    line: number,
                });
            }
        }
        let place = if in_block {
            entry_place.clone()
        } else {
            section_place.clone()
        };
        for name in names(rest) {
            doc.mentions.push(Mention {
                name,
                place: place.clone(),
                head: false,
                line: number,
            });
        }
    }
    doc
}

/// The folder a heading names in backquotes, or src/ itself.
fn heading_place(line: &str) -> String {
    line.split('`')
        .skip(1)
        .step_by(2)
        .find(|quoted| quoted.ends_with('/'))
        .unwrap_or("")
        .to_string()
}

/// The names of files (`.rs`) and folders (`/`) in a piece of text.
fn names(text: &str) -> Vec<String> {
    let is_path_char =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '*');
    text.split(|c: char| !is_path_char(c))
        .map(|word| word.trim_end_matches('.'))
        .map(|word| word.strip_prefix("src/").unwrap_or(word))
        .filter(|word| !word.contains('*'))
        .filter(|word| {
            (word.ends_with(".rs") && word.len() > 3)
                || (word.ends_with('/') && word.len() > 1 && !word.starts_with(['.', '/']))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn names_and_places_are_read_as_the_header_says() {
    let doc = parse(
        "intro names `src/lib.rs` and cli/ (`*_cmd.rs`)\n\
         ## The layers, bottom up\n\
         ```\n\
         hash/          kind.rs and oid.rs\n\
         bytes.rs       common prefixes\n\
         pack/data/     file.rs, write/: encode.rs. Not a name: rehash/x.txt\n\
         ```\n\
         ## The conversion (`convert/`), bottom up\n\
         see `cli/exit_class.rs`.\n\
         ```\n\
         error/         kinds\n\
         open.rs        step 1\n\
         ```\n",
    );
    let seen: Vec<(&str, &str, bool)> = doc
        .mentions
        .iter()
        .map(|m| (m.name.as_str(), m.place.as_str(), m.head))
        .collect();
    assert_eq!(
        seen,
        [
            ("lib.rs", "", false),
            ("cli/", "", false),
            ("hash/", "", true),
            ("kind.rs", "hash/", false),
            ("oid.rs", "hash/", false),
            ("bytes.rs", "", true),
            ("pack/data/", "", true),
            ("file.rs", "pack/data/", false),
            ("write/", "pack/data/", false),
            ("encode.rs", "pack/data/", false),
            ("cli/exit_class.rs", "convert/", false),
            ("error/", "convert/", true),
            ("open.rs", "convert/", true),
        ]
    );
    let layering = |place: &str, layers: &[&str]| Layering {
        place: place.to_string(),
        layers: layers.iter().map(|l| l.to_string()).collect(),
    };
    assert_eq!(
        doc.layerings,
        [
            layering("", &["hash/", "bytes.rs"]),
            layering("convert/", &["error/", "open.rs"])
        ]
    );
}
