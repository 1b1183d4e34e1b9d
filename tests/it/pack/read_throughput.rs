//! How fast a pack given from outside is traversed and read, printed
//! rather than checked (ignored unless asked for).

use std::path::Path;

use super::no_external;
use crate::support::library::{DeltaCache, HashKind, Pack, PackError, sha1_object_id};

/// Throughput probe, not a check: `PACK_BENCH_IDX=/path/pack-X.idx cargo
/// test --test it -- --ignored --nocapture bench_traverse_and_read_at`.
#[test]
#[ignore]
fn bench_traverse_and_read_at() {
    let Some(idx) = std::env::var_os("PACK_BENCH_IDX") else {
        return;
    };
    let pack = Pack::open(Path::new(&idx), HashKind::Sha1).unwrap();
    let bytes = std::sync::atomic::AtomicU64::new(0);
    let start = std::time::Instant::now();
    pack.traverse::<PackError>(&no_external, &|_, _, _, body| {
        bytes.fetch_add(body.len() as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    })
    .unwrap();
    let t = start.elapsed();
    let total = bytes.into_inner();
    println!(
        "traverse: {} objects, {} MiB inflated in {:.2?} ({:.0} MiB/s, {} rayon threads)",
        pack.idx.num_objects(),
        total >> 20,
        t,
        total as f64 / 1048576.0 / t.as_secs_f64(),
        rayon::current_num_threads()
    );
    let start = std::time::Instant::now();
    pack.traverse::<PackError>(&no_external, &|i, _, kind, body| {
        assert_eq!(sha1_object_id(kind, body).unwrap(), pack.idx.oid_at(i));
        Ok(())
    })
    .unwrap();
    println!("traverse + sha1dc naming: {:.2?}", start.elapsed());
    let mut cache = DeltaCache::new(64 << 20);
    let mut out = Vec::new();
    let start = std::time::Instant::now();
    for i in 0..pack.idx.num_objects() {
        pack.read_at(pack.idx.offset_at(i), &mut cache, &no_external, &mut out)
            .unwrap();
    }
    println!(
        "read_at in name order, 64 MiB cache: {:.2?}",
        start.elapsed()
    );
}
