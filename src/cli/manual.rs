//! The manual page git-rehash(1), in roff: every subcommand with its
//! synopsis and options as clap_mangen renders them from the clap
//! definition, then the exit status (from [`ExitClass::ALL`]), the files,
//! examples and where to read more. One page for the whole tool, as
//! `git help rehash` and `git rehash --help` open `man git-rehash`.

use std::io::{self, Write};

use clap::Command;
use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, italic, roman};

use super::exit_class::ExitClass;

/// `git-rehash --help`'s description, and the manual's.
pub const LONG_ABOUT: &str = "\
Convert Git repositories between SHA-1 and SHA-256 object names.

`git-rehash convert SOURCE DEST` reads SOURCE without ever writing to it, \
checks every object's name as it reads it (SHA-1 with collision \
detection), translates trees, commits and tags as git's hash-transition \
rules define it, and writes DEST, a bare repository in the other hash \
(SHA-256 from a SHA-1 SOURCE, SHA-1 from a SHA-256 one) with one pack, its \
bitmap and commit-graph, and the SHA-1 <-> SHA-256 map of every object in \
DEST/rehash/map.sqlite. A run that is interrupted or killed resumes when \
the same command runs again; a run on a finished DEST converts what SOURCE \
gained since. `export-sha1` writes a SHA-256 DEST's new history back into \
a SHA-1 mirror, `verify` checks a conversion, `attest` signs a statement \
of it, `map` and `translate-text` answer with the map, `repack` folds the \
packs of incremental runs into one.";

/// The exit status table `--help` ends with.
pub fn exit_status_help() -> String {
    let mut text = String::from("Exit status (the same for every command):\n");
    for class in ExitClass::ALL {
        text.push_str(&format!("  {:>3}  {}\n", class.code(), class.meaning()));
    }
    text.push_str(
        "\nThe manual: `git-rehash generate man` (see README.md), or docs/ in the source.",
    );
    text
}

/// Writes the whole page.
pub fn render(mut cli: Command, out: &mut dyn Write) -> io::Result<()> {
    cli.build();
    let man = Man::new(cli.clone())
        .title("GIT-REHASH")
        .section("1")
        .manual("Git Manual")
        .source(format!("git-rehash {}", env!("CARGO_PKG_VERSION")));
    // Each rendered piece starts with the same string definitions (the
    // apostrophe's); the page holds them once, first.
    out.write_all(Roff::new().render().as_bytes())?;
    out.write_all(body(|w| man.render_title(w))?.as_bytes())?;
    out.write_all(body(|w| man.render_name_section(w))?.as_bytes())?;
    let mut page = Roff::new();
    synopsis(&mut page, &cli);
    page.control("SH", ["DESCRIPTION"]);
    paragraphs(&mut page, LONG_ABOUT);
    page.control("SH", ["COMMANDS"]);
    out.write_all(body(|w| page.to_writer(w))?.as_bytes())?;
    for sub in visible_subcommands(&cli) {
        command_section(sub, out)?;
    }
    let mut page = Roff::new();
    exit_status(&mut page);
    files(&mut page);
    examples(&mut page);
    see_also(&mut page);
    out.write_all(body(|w| page.to_writer(w))?.as_bytes())
}

fn visible_subcommands(cli: &Command) -> impl Iterator<Item = &Command> {
    cli.get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
}

/// One line a subcommand: `git-rehash convert [options] SOURCE DEST`.
fn synopsis(page: &mut Roff, cli: &Command) {
    page.control("SH", ["SYNOPSIS"]);
    for (i, sub) in visible_subcommands(cli).enumerate() {
        if i > 0 {
            page.control("br", []);
        }
        let mut line = vec![bold(format!("git-rehash {}", sub.get_name()))];
        line.push(roman(" [options]"));
        for arg in sub.get_positionals().filter(|a| !a.is_hide_set()) {
            let name = arg
                .get_value_names()
                .and_then(|names| names.first())
                .map_or_else(|| arg.get_id().to_string(), |n| n.to_string());
            let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
            let (open, close) = if arg.is_required_set() {
                ("", "")
            } else {
                ("[", "]")
            };
            line.push(roman(format!(" {open}")));
            line.push(italic(name));
            line.push(roman(format!("{}{close}", if many { "..." } else { "" })));
        }
        page.text(line);
    }
}

/// A subcommand's subsection: what it does, its synopsis with every
/// option, and each option's description.
fn command_section(sub: &Command, out: &mut dyn Write) -> io::Result<()> {
    let mut head = Roff::new();
    head.control("SS", [format!("git-rehash {}", sub.get_name()).as_str()]);
    if let Some(about) = sub.get_long_about().or_else(|| sub.get_about()) {
        paragraphs(&mut head, &about.to_string());
    }
    out.write_all(body(|w| head.to_writer(w))?.as_bytes())?;
    let man = Man::new(sub.clone());
    out.write_all(b".PP\n")?;
    let synopsis = body(|w| man.render_synopsis_section(w))?;
    out.write_all(without_headings(&synopsis).as_bytes())?;
    let options = body(|w| man.render_options_section(w))?;
    out.write_all(without_headings(&options).as_bytes())
}

/// A subcommand's piece without its `.SH` headings (SYNOPSIS, OPTIONS):
/// the subcommand's `.SS` holds them all.
fn without_headings(piece: &str) -> String {
    piece
        .lines()
        .filter(|line| !line.starts_with(".SH"))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Text paragraphs separated by blank lines.
fn paragraphs(page: &mut Roff, text: &str) {
    for (i, paragraph) in text.split("\n\n").enumerate() {
        if i > 0 {
            page.control("PP", []);
        }
        page.text([roman(paragraph.replace('\n', " "))]);
    }
}

fn exit_status(page: &mut Roff) {
    page.control("SH", ["EXIT STATUS"]);
    page.text([roman(
        "Every command exits with one of these, each with one meaning; a job runner retries \
         only 3 and 130. convert --json reports the same class as its status.",
    )]);
    for class in ExitClass::ALL {
        page.control("TP", []);
        page.text([bold(class.code().to_string())]);
        page.text([roman(class.meaning())]);
    }
}

fn files(page: &mut Roff) {
    page.control("SH", ["FILES"]);
    let files: [(&str, &str); 8] = [
        (
            "DEST/rehash/map.sqlite",
            "The SHA-1 <-> SHA-256 map of every object and the journal of the runs (SQLite); \
             map, translate-text, verify and export-sha1 read it.",
        ),
        (
            "DEST/rehash/convert.lock",
            "Locked (flock) while a convert, repack or export-sha1 works on DEST; a second run \
             stops at once with status 3.",
        ),
        (
            "DEST/rehash/gitlinks.txt",
            "The SHA-1 and SHA-256 names of the submodule commits DEST's trees pin.",
        ),
        (
            "DEST/objects/pack/pack-*.pack, .idx, .rev, .bitmap",
            "DEST's pack, its index, reverse index and reachability bitmap.",
        ),
        (
            "DEST/objects/info/commit-graph",
            "DEST's commit-graph, as git commit-graph write makes it.",
        ),
        (
            "DEST/modules/NAME/",
            "Submodules converted first (--recurse-submodules, --submodule), each a DEST of \
             its own.",
        ),
        (
            "DEST/objects/loose-object-idx",
            "git's own compat map, with --git-compat-map.",
        ),
        (
            "MIRROR/rehash-export/",
            "export-sha1's working files and its lock in MIRROR.",
        ),
    ];
    for (path, what) in files {
        page.control("TP", []);
        page.text([italic(path)]);
        page.text([roman(what)]);
    }
    page.control("PP", []);
    page.text([roman(
        "SOURCE is only read. DEST becomes a repository last: its HEAD and config are written \
         after everything else, so an interrupted or refused run never leaves something git \
         would open.",
    )]);
}

fn examples(page: &mut Roff) {
    page.control("SH", ["EXAMPLES"]);
    let examples: [(&str, &str); 9] = [
        (
            "Convert, then check the result against SOURCE:",
            "git-rehash convert /srv/git/app.git /srv/git-sha256/app.git\n\
             git-rehash verify /srv/git-sha256/app.git --source /srv/git/app.git",
        ),
        (
            "Run it again after pushes to SOURCE: only the new objects are converted.",
            "git-rehash convert /srv/git/app.git /srv/git-sha256/app.git",
        ),
        (
            "A superproject, after its submodule lib was converted:",
            "git-rehash convert --submodule-map /srv/git-sha256/lib.git/rehash/map.sqlite \
             /srv/git/app.git /srv/git-sha256/app.git",
        ),
        (
            "A mirror of a hosted repository, without its pull-request refs and what only they \
             reach:",
            "git-rehash convert --exclude-refs 'refs/pull/*' /srv/mirrors/app.git \
             /srv/git-sha256/app.git",
        ),
        (
            "One job of a fleet, with a report for the runner:",
            "git-rehash convert --quiet --json --jobs 2 SOURCE DEST > report.json",
        ),
        (
            "Look names up, and rewrite SHA-1 ids in release notes:",
            "git-rehash map --repo DEST 1a2b3c4d\n\
             git-rehash translate-text --repo DEST < notes.md > notes-sha256.md",
        ),
        (
            "A SHA-256 repository into SHA-1, for a host that serves SHA-1 only:",
            "git-rehash convert /srv/git-sha256/tool.git /srv/git-sha1/tool.git",
        ),
        (
            "Keep a SHA-1 mirror in line with the SHA-256 repository:",
            "git-rehash export-sha1 /srv/git-sha256/app.git /srv/git/app.git",
        ),
        (
            "Install this page and the bash completion:",
            "git-rehash generate man > ~/.local/share/man/man1/git-rehash.1\n\
             git-rehash generate complete-bash > \
             ~/.local/share/bash-completion/completions/git-rehash",
        ),
    ];
    for (what, commands) in examples {
        page.control("PP", []);
        page.text([roman(what)]);
        page.control("PP", []);
        page.control("RS", ["4"]);
        page.control("nf", []);
        for line in commands.lines() {
            page.text([roman(line)]);
        }
        page.control("fi", []);
        page.control("RE", []);
    }
}

fn see_also(page: &mut Roff) {
    page.control("SH", ["SEE ALSO"]);
    page.text([roman(
        "git(1), git-fsck(1), gitformat-bitmap(5), git's hash-function-transition document. \
         The manual in docs/ of the source: usage.md (what is converted and refused), \
         fleet.md (many repositories under a job runner), resume.md, interop.md, files.md, \
         verify.md, map.md, hostile.md.",
    )]);
}

/// What `render` writes, without the string definitions every piece
/// starts with.
fn body(render: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<String> {
    let mut buf = Vec::new();
    render(&mut buf)?;
    let text = String::from_utf8(buf).map_err(io::Error::other)?;
    let preamble = Roff::new().render();
    Ok(text.strip_prefix(&preamble).unwrap_or(&text).to_string())
}
