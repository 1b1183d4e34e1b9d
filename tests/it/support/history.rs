//! Small histories made with git in a test's own repository.

use std::path::Path;

use super::git::git;

/// Writes `content` to `file` in the work tree of `repo`, commits it with
/// `message` and returns the new commit's name.
pub fn commit_file(repo: &Path, file: &str, content: &str, message: &str) -> String {
    std::fs::write(repo.join(file), content).unwrap();
    git(repo, &["add", file]);
    git(repo, &["commit", "-q", "-m", message]);
    git(repo, &["rev-parse", "HEAD"])
}

/// A repository in `dir` with history worth deltifying: growing and edited
/// files in nested trees, a binary-ish file, a tag.
pub fn deltified_history(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::create_dir_all(dir.join("src/deep")).unwrap();
    let mut text = String::new();
    for commit in 0..24 {
        for line in 0..40 {
            text.push_str(&format!(
                "commit {commit} line {line}: some words to compress\n"
            ));
        }
        text = text.replace(&format!("commit {} line 3", commit / 2), "edited");
        std::fs::write(dir.join("a.txt"), &text).unwrap();
        std::fs::write(dir.join("src/deep/b.txt"), text.repeat(2)).unwrap();
        let bin: Vec<u8> = (0..5000u32)
            .map(|i| ((i * 7 + commit) % 256) as u8)
            .collect();
        std::fs::write(dir.join("src/bin.dat"), bin).unwrap();
        std::fs::write(
            dir.join(format!("src/f{}.txt", commit % 5)),
            format!("{commit}\n"),
        )
        .unwrap();
        git(dir, &["add", "-A"]);
        git(
            dir,
            &["commit", "-q", "-m", &format!("commit {commit}\n\nbody")],
        );
    }
    git(dir, &["tag", "-a", "-m", "a tag", "v1"]);
}

/// [`deltified_history`] in `dir` (made first), with a side branch
/// `topic`: one commit on `main~3`, checked out.
pub fn history_with_topic(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    deltified_history(dir);
    git(dir, &["checkout", "-q", "-b", "topic", "HEAD~3"]);
    commit_file(dir, "topic.txt", "topic\n", "topic work");
}

/// The commit a gitlink entry `path` in `treeish` of `repo` pins.
pub fn gitlink_in(repo: &Path, treeish: &str, path: &str) -> String {
    let line = git(repo, &["ls-tree", treeish, "--", path]);
    let rest = line
        .strip_prefix("160000 commit ")
        .unwrap_or_else(|| panic!("not a gitlink: {line}"));
    rest.split('\t').next().unwrap().to_owned()
}

/// One commit for [`imported_commits`]: its message and the (path, body)
/// files it writes.
pub type Imported = (String, Vec<(String, String)>);

/// A bare repository `label/src.git` whose `main` has one commit per
/// entry of `commits` (one second apart, through fast-import).
pub fn imported_commits(label: &str, commits: &[Imported]) -> std::path::PathBuf {
    let changes: Vec<(String, Vec<Change>)> = commits
        .iter()
        .map(|(message, files)| {
            let puts = files
                .iter()
                .map(|(path, body)| Change::Put(path.clone(), body.clone()));
            (message.clone(), puts.collect())
        })
        .collect();
    imported_changes(label, &changes)
}

/// What one commit of [`imported_changes`] does to a file.
pub enum Change {
    /// Writes (path, body).
    Put(String, String),
    Delete(String),
}

/// [`imported_commits`], whose commits may also delete files.
pub fn imported_changes(label: &str, commits: &[(String, Vec<Change>)]) -> std::path::PathBuf {
    use std::fmt::Write as _;
    let repo = super::scratch::scratch_dir(label).join("src.git");
    git(
        Path::new("."),
        &["init", "-q", "--bare", repo.to_str().expect("utf-8")],
    );
    let mut stream = String::new();
    for (c, (message, changes)) in commits.iter().enumerate() {
        writeln!(stream, "commit refs/heads/main").unwrap();
        writeln!(
            stream,
            "committer C <c@example.invalid> {} +0000",
            1_700_000_000 + c
        )
        .unwrap();
        write!(stream, "data {}\n{message}", message.len()).unwrap();
        for change in changes {
            match change {
                Change::Put(path, body) => write!(
                    stream,
                    "M 100644 inline {path}\ndata {}\n{body}\n",
                    body.len()
                ),
                Change::Delete(path) => writeln!(stream, "D {path}"),
            }
            .unwrap();
        }
        stream.push('\n');
    }
    super::git::git_with_input(&repo, &["fast-import", "--quiet"], stream.as_bytes());
    repo
}
