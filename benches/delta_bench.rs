//! Benchmark of the delta encoder (`DeltaIndex`) on a real repository's
//! objects. Not a test: run it with
//!
//! ```sh
//! DELTA_BENCH_REPO=path/to/repo.git cargo bench --bench delta_bench
//! ```
//!
//! The repository defaults to this crate's own; it is only read (through
//! `git rev-list` and `git cat-file`). Two workloads, both over the SHA-1
//! bodies as they are stored:
//! - pairs: every blob against the next older version of its path
//!   (`rev-list --objects` order), no size bound: the encoder's delta bytes
//!   and the CPU of indexing and of encoding, apart;
//! - window: the window search of `convert --no-reuse-deltas` over every
//!   object, per type, in git's order with git's size bounds
//!   (`DELTA_BENCH_WINDOW`, default 10; depth 50): delta bytes chosen, the
//!   bytes stored (deltas plus the objects left whole, before zlib) and
//!   the search's CPU (bodies read from `git cat-file` not counted).
//!
//! Sizes are deterministic; CPU is this thread's, so it is a fair figure
//! on a busy machine, but repeat runs and take the median.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use git_rehash::pack::apply_delta;
use git_rehash::pack::{
    DeltaIndex, Tries, WindowObject, WindowOptions, pack_name_hash, window_search,
};

/// One object of the repository, in `rev-list --objects` order.
struct Object {
    id: String,
    kind: String,
    size: u64,
    path: Option<Vec<u8>>,
}

/// A running `git cat-file --batch`, for bodies on demand.
struct Bodies {
    child: Child,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
}

impl Bodies {
    fn open(repo: &PathBuf) -> Self {
        let mut child = Command::new("git")
            .arg("-C")
            .arg(repo)
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run git cat-file --batch");
        let input = BufWriter::new(child.stdin.take().expect("piped"));
        let output = BufReader::new(child.stdout.take().expect("piped"));
        Bodies {
            child,
            input,
            output,
        }
    }

    fn read(&mut self, id: &str) -> Vec<u8> {
        writeln!(self.input, "{id}").expect("write to cat-file");
        self.input.flush().expect("flush cat-file");
        let mut header = String::new();
        self.output.read_line(&mut header).expect("cat-file header");
        let size: usize = header
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("cat-file answered {header:?} for {id}"));
        let mut body = vec![0; size + 1];
        self.output.read_exact(&mut body).expect("cat-file body");
        body.pop(); // the newline after the body
        body
    }
}

impl Drop for Bodies {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes the timespec it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn git_lines(repo: &PathBuf, args: &[&str], stdin: Option<String>) -> Vec<String> {
    let mut child = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run git");
    let mut input = child.stdin.take().expect("piped");
    let feeder = std::thread::spawn(move || {
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).expect("feed git");
        }
    });
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("piped")
        .read_to_string(&mut out)
        .expect("read git");
    feeder.join().expect("feeder");
    assert!(child.wait().expect("wait git").success(), "git {args:?}");
    out.lines().map(str::to_owned).collect()
}

fn objects(repo: &PathBuf) -> Vec<Object> {
    let listed = git_lines(repo, &["rev-list", "--objects", "--all"], None);
    let ids: String = listed
        .iter()
        .map(|l| format!("{}\n", &l[..l.find(' ').unwrap_or(l.len())]))
        .collect();
    let checked = git_lines(
        repo,
        &["cat-file", "--batch-check=%(objecttype) %(objectsize)"],
        Some(ids),
    );
    listed
        .iter()
        .zip(&checked)
        .map(|(line, check)| {
            let (id, path) = match line.split_once(' ') {
                Some((id, path)) => (id, Some(path.as_bytes().to_vec())),
                None => (line.as_str(), None),
            };
            let (kind, size) = check.split_once(' ').expect("type and size");
            Object {
                id: id.to_owned(),
                kind: kind.to_owned(),
                size: size.parse().expect("size"),
                path,
            }
        })
        .collect()
}

fn pairs(objects: &[Object], bodies: &mut Bodies) {
    let mut by_path: HashMap<&[u8], Vec<&Object>> = HashMap::new();
    for o in objects.iter().filter(|o| o.kind == "blob") {
        if let Some(path) = &o.path {
            by_path.entry(path).or_default().push(o);
        }
    }
    let mut paths: Vec<_> = by_path.into_iter().collect();
    paths.sort_by(|a, b| a.0.cmp(b.0));
    let (mut count, mut target_bytes, mut delta_bytes) = (0u64, 0u64, 0u64);
    let (mut index_cpu, mut encode_cpu) = (Duration::ZERO, Duration::ZERO);
    for (_, versions) in paths {
        let mut newer: Option<Vec<u8>> = None;
        for o in versions {
            let target = bodies.read(&o.id);
            if let Some(base) = newer.take() {
                let t0 = thread_cpu();
                let index = DeltaIndex::new(&base);
                let t1 = thread_cpu();
                let delta = index.encode(&target, usize::MAX).expect("no bound");
                let t2 = thread_cpu();
                index_cpu += t1 - t0;
                encode_cpu += t2 - t1;
                let mut out = Vec::new();
                apply_delta(&base, &delta, &mut out).expect("the delta applies");
                assert!(out == target, "delta of {} does not apply back", o.id);
                count += 1;
                target_bytes += target.len() as u64;
                delta_bytes += delta.len() as u64;
            }
            newer = Some(target);
        }
    }
    println!(
        "pairs: {count} blob pairs, {target_bytes} target bytes -> {delta_bytes} delta bytes; \
         CPU index {:.2}s, encode {:.2}s",
        index_cpu.as_secs_f64(),
        encode_cpu.as_secs_f64()
    );
}

fn window(objects: &[Object], bodies: &mut Bodies, window: usize) {
    for kind in ["blob", "tree", "commit", "tag"] {
        let of_kind: Vec<&Object> = objects.iter().filter(|o| o.kind == kind).collect();
        let listed: Vec<WindowObject> = of_kind
            .iter()
            .map(|o| WindowObject {
                name_hash: o.path.as_deref().map_or(0, pack_name_hash),
                size: o.size,
            })
            .collect();
        let opts = WindowOptions {
            window,
            depth: 50,
            memory: usize::MAX,
            id_len: 20,
            tries: Tries::Every,
        };
        let (mut deltas, mut delta_bytes, mut replaced) = (0u64, 0u64, 0u64);
        let mut reading = Duration::ZERO;
        let start = thread_cpu();
        window_search::<()>(
            &listed,
            opts,
            |i| {
                let t = thread_cpu();
                let body = bodies.read(&of_kind[i as usize].id);
                reading += thread_cpu() - t;
                Ok(body)
            },
            |i, _, delta| {
                deltas += 1;
                replaced += listed[i as usize].size;
                delta_bytes += delta.len() as u64;
                Ok(())
            },
        )
        .expect("infallible");
        let cpu = thread_cpu() - start - reading;
        let bytes: u64 = listed.iter().map(|o| o.size).sum();
        // What the pack would hold before compression: each object as a
        // delta or whole.
        let stored = bytes - replaced + delta_bytes;
        println!(
            "window {window}, {kind}: {} objects of {bytes} bytes, {deltas} deltas of \
             {delta_bytes} bytes, {stored} bytes stored; search CPU {:.2}s",
            listed.len(),
            cpu.as_secs_f64()
        );
    }
}

fn main() {
    let repo = std::env::var_os("DELTA_BENCH_REPO")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    let window_size = std::env::var("DELTA_BENCH_WINDOW")
        .ok()
        .and_then(|w| w.parse().ok())
        .unwrap_or(10);
    let objects = objects(&repo);
    println!("{}: {} objects", repo.display(), objects.len());
    let mut bodies = Bodies::open(&repo);
    pairs(&objects, &mut bodies);
    window(&objects, &mut bodies, window_size);
}
