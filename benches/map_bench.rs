//! Benchmark of `git-rehash map` on a synthetic map (default 2,000,000
//! rows; `MAP_BENCH_ROWS` to change). Not a test: run it with
//!
//! ```sh
//! cargo bench --bench map_bench
//! ```
//!
//! The map is generated with `IdMap::load`: row n is the blob/tree/commit/tag
//! whose body is the decimal number n, named by its real SHA-1 and SHA-256,
//! so ids are uniformly spread like real ones. It is kept in
//! `target/tmp/map-bench/` and reused. Measured, each with the release
//! binary as a user runs it (process start to exit):
//! - `map --batch` lookups per second by full id and by 8-digit prefix,
//!   SHA-1 and SHA-256 inputs, stdin from a file, stdout to /dev/null;
//! - the latency of one `map <id>` invocation;
//! - `map --export` rows per second;
//! - the database's bytes per row;
//! - for comparison, `git cat-file --batch-all-objects --batch-check` on a
//!   repository of as many objects (`MAP_BENCH_GIT=0` to skip building it).

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use git_rehash::idmap::{HexPrefix, IdMap, MapRow, Resolution, Resolver};
use git_rehash::object::ObjectKind;
use git_rehash::object::{sha1_object_id, sha256_object_id};

const QUERIES: usize = 500_000;

/// How a query set writes a row's id.
type IdFormat = Box<dyn Fn(&MapRow) -> String>;

fn kind_of(n: u64) -> ObjectKind {
    // Roughly a real repository's mix.
    match n % 100 {
        0..=44 => ObjectKind::Blob,
        45..=79 => ObjectKind::Tree,
        80..=98 => ObjectKind::Commit,
        _ => ObjectKind::Tag,
    }
}

fn row(n: u64) -> MapRow {
    let kind = kind_of(n);
    let body = n.to_string();
    MapRow {
        sha1: sha1_object_id(kind, body.as_bytes()).expect("no collision"),
        sha256: sha256_object_id(kind, body.as_bytes()),
        kind,
    }
}

fn build_map(path: &Path, rows: u64) {
    let marker = path.with_extension("rows");
    if path.is_file() && fs::read_to_string(&marker).ok() == Some(rows.to_string()) {
        // Reused: opening it read-write migrates a map built by an older
        // version, as `convert` would.
        drop(IdMap::open_rw(path).expect("upgrade map"));
        return;
    }
    let _ = fs::remove_file(path);
    let start = Instant::now();
    let mut all: Vec<MapRow> = (0..rows).map(row).collect();
    all.sort_by_key(|r| r.sha1);
    let mut map = IdMap::open_rw(path).expect("create map");
    map.load(all).expect("load");
    map.finish_load().expect("index");
    drop(map);
    // Fold the WAL back so the file size is the database's size.
    let conn = rusqlite::Connection::open(path).expect("open");
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
        .expect("checkpoint");
    fs::write(&marker, rows.to_string()).expect("marker");
    eprintln!(
        "built {rows}-row map in {:.1}s",
        start.elapsed().as_secs_f64()
    );
}

/// `QUERIES` rows spread over the whole key space (a multiplicative walk).
fn sample(rows: u64) -> Vec<MapRow> {
    (0..QUERIES as u64)
        .map(|i| row(i.wrapping_mul(2_654_435_761) % rows))
        .collect()
}

fn write_queries(path: &Path, ids: impl Iterator<Item = String>) {
    let mut out = BufWriter::new(File::create(path).expect("create"));
    for id in ids {
        writeln!(out, "{id}").expect("write");
    }
    out.flush().expect("flush");
}

/// Wall-clock and CPU (user + system) time of one run.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
struct Timing {
    wall: Duration,
    cpu: Option<Duration>,
}

impl Timing {
    /// CPU time when known: on a shared machine, wall time measures the
    /// neighbours as much as the command.
    fn best(&self) -> Duration {
        self.cpu.unwrap_or(self.wall)
    }
}

/// Runs `program args < stdin > /dev/null` under `/usr/bin/time` (when
/// present) to get its CPU time as well.
fn timed(program: &Path, args: &[&OsStr], stdin: Option<&Path>) -> Timing {
    let time_bin = Path::new("/usr/bin/time");
    let report = std::env::temp_dir().join(format!("map-bench-time-{}", std::process::id()));
    let _ = fs::remove_file(&report);
    let mut cmd = if time_bin.is_file() {
        let mut wrapped = Command::new(time_bin);
        wrapped
            .args(["-f", "%U %S", "-o"])
            .arg(&report)
            .arg(program);
        wrapped
    } else {
        Command::new(program)
    };
    cmd.args(args).stdout(Stdio::null());
    if let Some(path) = stdin {
        cmd.stdin(File::open(path).expect("stdin file"));
    }
    let start = Instant::now();
    let status = cmd.status().expect("run");
    let wall = start.elapsed();
    assert!(
        status.code() == Some(0) || status.code() == Some(1),
        "{cmd:?}: {status}"
    );
    // GNU time puts "Command exited with non-zero status 1" first when the
    // status is 1 (some id missing); the figures are on the last line.
    let cpu = fs::read_to_string(&report).ok().and_then(|t| {
        let mut f = t
            .lines()
            .last()?
            .split_whitespace()
            .map(|x| x.parse::<f64>().ok());
        Some(Duration::from_secs_f64(f.next()?? + f.next()??))
    });
    Timing { wall, cpu }
}

/// CPU time this thread has used (Linux `/proc/thread-self/schedstat`).
fn thread_cpu() -> Option<Duration> {
    let text = fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(
        text.split_whitespace().next()?.parse().ok()?,
    ))
}

fn best_of_3(f: impl Fn() -> Timing) -> Timing {
    f(); // warm the page cache
    let runs = [f(), f(), f()];
    *runs
        .iter()
        .min_by(|a, b| a.best().cmp(&b.best()))
        .expect("three runs")
}

fn describe(t: &Timing) -> String {
    match t.cpu {
        Some(cpu) => format!(
            "{:.3}s CPU, {:.3}s wall",
            cpu.as_secs_f64(),
            t.wall.as_secs_f64()
        ),
        None => format!("{:.3}s wall", t.wall.as_secs_f64()),
    }
}

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_git-rehash"))
}

fn main() {
    let rows: u64 = std::env::var("MAP_BENCH_ROWS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("map-bench");
    fs::create_dir_all(&dir).expect("bench dir");
    let map_path = dir.join("map.sqlite");
    build_map(&map_path, rows);
    let size = fs::metadata(&map_path).expect("map size").len();
    println!(
        "map: {rows} rows, {size} bytes, {:.1} bytes/row",
        size as f64 / rows as f64
    );

    let picked = sample(rows);
    let sets: [(&str, IdFormat); 4] = [
        ("full SHA-1", Box::new(|r| r.sha1.to_hex())),
        ("full SHA-256", Box::new(|r| r.sha256.to_hex())),
        (
            "8-digit SHA-1 prefix",
            Box::new(|r| r.sha1.to_hex()[..8].to_owned()),
        ),
        (
            "8-digit SHA-256 prefix",
            Box::new(|r| r.sha256.to_hex()[..8].to_owned()),
        ),
    ];
    let map = IdMap::open_read_only(&map_path).expect("open");
    let map_arg = map_path.as_os_str();
    for (name, fmt) in &sets {
        let file = dir.join("queries.txt");
        write_queries(&file, picked.iter().map(fmt));
        let run = best_of_3(|| {
            timed(
                &bin(),
                &[
                    "map".as_ref(),
                    "--batch".as_ref(),
                    "--map".as_ref(),
                    map_arg,
                ],
                Some(&file),
            )
        });
        // The same lookups in-process, without parsing and printing.
        let prefixes: Vec<HexPrefix> = picked
            .iter()
            .map(|r| HexPrefix::parse(fmt(r).as_bytes()).expect("hex"))
            .collect();
        let mut resolver = Resolver::new(&map).expect("resolver");
        resolver.hold_snapshot().expect("snapshot");
        let (wall0, cpu0) = (Instant::now(), thread_cpu());
        let mut found = 0usize;
        for p in &prefixes {
            found += matches!(resolver.resolve(p).expect("query"), Resolution::Found(_)) as usize;
        }
        let in_process = Timing {
            wall: wall0.elapsed(),
            cpu: thread_cpu().zip(cpu0).map(|(b, a)| b - a),
        };
        println!(
            "batch, {name:<22}: {:>8.0} lookups/s per CPU-second ({QUERIES} lines: {}); in-process {:>8.0}/s ({}); {found} found",
            QUERIES as f64 / run.best().as_secs_f64(),
            describe(&run),
            QUERIES as f64 / in_process.best().as_secs_f64(),
            describe(&in_process),
        );
    }

    let one = picked[QUERIES / 2].sha1.to_hex();
    let mut latencies: Vec<Timing> = (0..51)
        .map(|_| {
            timed(
                &bin(),
                &["map".as_ref(), "--map".as_ref(), map_arg, one.as_ref()],
                None,
            )
        })
        .collect();
    latencies.sort_by_key(|t| t.wall);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "single `map <sha1>`, process start to exit: median {:.2} ms, p90 {:.2} ms, max {:.2} ms wall (51 runs)",
        ms(latencies[25].wall),
        ms(latencies[45].wall),
        ms(latencies[50].wall)
    );

    for format in ["text", "loose-object-idx"] {
        let run = best_of_3(|| {
            timed(
                &bin(),
                &[
                    "map".as_ref(),
                    "--export".as_ref(),
                    "--format".as_ref(),
                    format.as_ref(),
                    "--map".as_ref(),
                    map_arg,
                ],
                None,
            )
        });
        println!(
            "export --format {format}: {:.0} rows/s per CPU-second ({rows} rows: {})",
            rows as f64 / run.best().as_secs_f64(),
            describe(&run)
        );
    }

    if std::env::var("MAP_BENCH_GIT").as_deref() != Ok("0") {
        git_comparison(&dir, rows);
    }
}
/// A repository of `rows` blobs (via fast-import), listed by git.
fn git_comparison(dir: &Path, rows: u64) {
    let repo = dir.join("objects.git");
    let marker = dir.join("objects.git.rows");
    if fs::read_to_string(&marker).ok() != Some(rows.to_string()) {
        let _ = fs::remove_dir_all(&repo);
        let git = |args: &[&str]| Command::new("git").arg("-C").arg(&repo).args(args).status();
        fs::create_dir_all(&repo).expect("mkdir");
        assert!(git(&["init", "-q", "--bare"]).expect("git").success());
        let mut child = Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(["fast-import", "--quiet"])
            .stdin(Stdio::piped())
            .spawn()
            .expect("git fast-import");
        {
            let mut input = BufWriter::new(child.stdin.take().expect("stdin"));
            for n in 0..rows {
                let body = n.to_string();
                write!(input, "blob\ndata {}\n{body}\n", body.len()).expect("feed");
            }
        }
        assert!(child.wait().expect("fast-import").success());
        fs::write(&marker, rows.to_string()).expect("marker");
    }
    let repo_arg = repo.as_os_str();
    let run = best_of_3(|| {
        timed(
            Path::new("git"),
            &[
                "-C".as_ref(),
                repo_arg,
                "cat-file".as_ref(),
                "--batch-all-objects".as_ref(),
                "--batch-check".as_ref(),
            ],
            None,
        )
    });
    println!(
        "git cat-file --batch-all-objects --batch-check: {:.0} objects/s per CPU-second ({rows} objects: {})",
        rows as f64 / run.best().as_secs_f64(),
        describe(&run)
    );
}
