//! The in-memory object table: every source object, sorted by SHA-1, with
//! where it is stored, its kind and (once known) its SHA-256 name.
//!
//! This is the hot map of the conversion: tree translation looks up every
//! entry here, so lookups go through a radix fan-out on the leading bits of
//! the SHA-1 (uniformly distributed) and then a short binary search, instead
//! of SQLite (~6 us a lookup). Memory is ~80 bytes per object.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::convert::source_objects::name_hashes::NameHashes;
use crate::hash::ObjectId;
use crate::object::ObjectKind;
use crate::pack::write::NameHashVersion;

/// Where an object's bytes are in the source repository.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Entry at `offset` of pack number `pack` (index into the inventory).
    Packed { pack: u32, offset: u64 },
    /// A loose object file in object directory number `dir` (index into
    /// the inventory's directories: SOURCE's own, then its alternates).
    Loose { dir: u32 },
}

/// A [`Location`] in 8 bytes instead of 16 (the table keeps one an
/// object): the pack number in the top bits, the offset in the rest; a
/// pack number of all ones is a loose object, the rest its directory.
#[derive(Clone, Copy)]
struct PackedLocation(u64);

const OFFSET_BITS: u32 = 44;
/// The pack number that marks a loose object.
const LOOSE: u64 = (1 << (64 - OFFSET_BITS)) - 1;

impl PackedLocation {
    /// Offsets up to 16 TiB, pack numbers below 2^20 - 1: far past any
    /// repository git itself handles.
    fn new(location: Location) -> Self {
        match location {
            Location::Loose { dir } => PackedLocation((LOOSE << OFFSET_BITS) | u64::from(dir)),
            Location::Packed { pack, offset } => {
                assert!(
                    offset < 1 << OFFSET_BITS && u64::from(pack) < LOOSE,
                    "pack {pack} offset {offset}: beyond the object table's 16 TiB / 2^20 packs"
                );
                PackedLocation((u64::from(pack) << OFFSET_BITS) | offset)
            }
        }
    }

    fn get(self) -> Location {
        let (pack, offset) = (self.0 >> OFFSET_BITS, self.0 & ((1 << OFFSET_BITS) - 1));
        if pack == LOOSE {
            return Location::Loose { dir: offset as u32 };
        }
        Location::Packed {
            pack: pack as u32,
            offset,
        }
    }
}

impl Location {
    /// Sort key for reading in storage order (loose objects last).
    pub fn offset(self) -> u64 {
        match self {
            Location::Packed { offset, .. } => offset,
            Location::Loose { .. } => u64::MAX,
        }
    }
}

/// Where an object's SHA-256 name comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// This run converts it.
    New,
    /// An earlier run of this conversion: DEST's map has its row.
    Converted,
    /// An earlier run of this conversion that did not finish: DEST's map
    /// has its row, and a segment not folded yet holds it. This run's
    /// passes plan it again, so that their chunks, search windows and
    /// deltas are those of a run that was never interrupted, but do not
    /// write it again.
    Carried,
    /// The pool's conversion DEST shares with (`--shared-with`): the
    /// pool's map has its row and the pool stores it, DEST does not.
    Shared,
}

/// The table. Index `i` names the same object in every column.
pub struct ObjectTable {
    sha1: Vec<[u8; 20]>,
    location: Vec<PackedLocation>,
    kind: Vec<Option<ObjectKind>>,
    /// Set once per object; the map pass names trees, commits and tags
    /// through a shared reference while the blob pass reads the blobs'.
    sha256: Vec<OnceLock<[u8; 32]>>,
    /// Inflated size (saturated at 4 GiB) of the objects this run decodes,
    /// for budgeting the memory of the passes that hold them.
    size: Vec<u32>,
    /// The name hashes of the delta search's sort, from the tree entries
    /// the scan reads (`name_hashes.rs`).
    names: NameHashes,
    /// Converted by an earlier run (the map has its row, a finished pack
    /// of DEST stores it) or by the pool's conversion DEST shares with.
    /// Such objects are neither read nor written again.
    origin: Vec<Origin>,
    /// `fanout[p]` = first index whose leading `bits` bits are >= p.
    fanout: Vec<u32>,
    bits: u32,
    /// interop: pairs of objects SOURCE does not have (gitlink targets).
    external: crate::gitlink_maps::external_map::ExternalMap,
    /// Commits whose mergetags naming objects SOURCE does not have are
    /// kept verbatim (`--unmapped-mergetags=verbatim`): sorted indices, few.
    verbatim_mergetags: Vec<u32>,
    /// Unique to this table and to the SHA-256 names it holds: a new one
    /// whenever a name may be overwritten, so that the per-thread memos of
    /// lookups (`recent_lookups.rs`) never answer from a stale table.
    serial: u64,
}

/// The next [`ObjectTable`] serial (0 is never given out).
fn next_serial() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

impl ObjectTable {
    /// Builds the table from (id, location) pairs; an id seen twice (the same
    /// object in two packs, or packed and loose) keeps its first location.
    pub fn new(mut objects: Vec<([u8; 20], Location)>) -> Self {
        objects.sort_by_key(|o| o.0);
        objects.dedup_by(|later, first| later.0 == first.0);
        let n = objects.len();
        let (sha1, location): (Vec<_>, Vec<_>) = objects
            .into_iter()
            .map(|(id, location)| (id, PackedLocation::new(location)))
            .unzip();
        // About one object per bucket, between 2^8 and 2^24 buckets.
        let bits = (usize::BITS - n.max(1).leading_zeros()).clamp(8, 24);
        let mut fanout = vec![0u32; (1usize << bits) + 1];
        for id in &sha1 {
            fanout[prefix(id, bits) + 1] += 1;
        }
        for i in 1..fanout.len() {
            fanout[i] += fanout[i - 1];
        }
        ObjectTable {
            kind: vec![None; n],
            size: vec![0; n],
            names: NameHashes::new(n),
            sha256: (0..n).map(|_| OnceLock::new()).collect(),
            origin: vec![Origin::New; n],
            sha1,
            location,
            fanout,
            bits,
            external: Default::default(),
            verbatim_mergetags: Vec::new(),
            serial: next_serial(),
        }
    }

    /// See the `serial` field.
    pub fn serial(&self) -> u64 {
        self.serial
    }

    pub fn len(&self) -> usize {
        self.sha1.len()
    }

    /// A digest of the id list: equal exactly when two tables hold the
    /// same objects, so that indices mean the same objects in both.
    pub fn fingerprint(&self) -> [u8; 32] {
        use sha2::Digest as _;
        let mut hasher = sha2::Sha256::new();
        hasher.update((self.sha1.len() as u64).to_le_bytes());
        hasher.update(self.sha1.as_flattened());
        hasher.finalize().into()
    }

    /// The index of a SHA-1 id, if the source has that object.
    ///
    /// Buckets hold about one id, so a short bucket is scanned with an
    /// inlined fixed-size equality (no `memcmp` call; this lookup runs for
    /// every tree entry, twice); a long bucket (ids crafted to share a
    /// prefix) falls back to binary search so it cannot go quadratic.
    #[inline]
    pub fn find(&self, id: &[u8; 20]) -> Option<u32> {
        let p = prefix(id, self.bits);
        let (lo, hi) = (self.fanout[p] as usize, self.fanout[p + 1] as usize);
        let bucket = &self.sha1[lo..hi];
        let at = if bucket.len() <= LINEAR_BUCKET {
            bucket.iter().position(|candidate| same_id(candidate, id))
        } else {
            bucket.binary_search(id).ok()
        };
        at.map(|i| (lo + i) as u32)
    }

    #[inline]
    pub fn find_id(&self, id: &ObjectId) -> Option<u32> {
        match id {
            ObjectId::Sha1(raw) => self.find(raw),
            ObjectId::Sha256(_) => None,
        }
    }

    pub fn sha1(&self, i: u32) -> ObjectId {
        ObjectId::Sha1(self.sha1[i as usize])
    }

    /// A key that sorts objects in SOURCE's storage order: by pack, then
    /// offset; loose objects last (by directory).
    pub fn storage_order(&self, i: u32) -> u64 {
        self.location[i as usize].0
    }

    pub fn location(&self, i: u32) -> Location {
        self.location[i as usize].get()
    }

    pub fn kind(&self, i: u32) -> Option<ObjectKind> {
        self.kind[i as usize]
    }

    pub fn set_kind(&mut self, i: u32, kind: ObjectKind) {
        self.kind[i as usize] = Some(kind);
    }

    pub fn size(&self, i: u32) -> u32 {
        self.size[i as usize]
    }

    pub fn set_size(&mut self, i: u32, size: u32) {
        self.size[i as usize] = size;
    }

    /// Which name hash the scan's notes make (before the scan).
    pub fn set_name_hash_version(&mut self, version: NameHashVersion) {
        self.names.set_version(version);
    }

    /// Which name hash the scan's notes make.
    pub fn name_hash_version(&self) -> NameHashVersion {
        self.names.version()
    }

    /// What tree `tree` says of its entry `name` ([`NameHashes::note_of`]).
    pub fn name_note(&self, tree: u32, name: &[u8]) -> u64 {
        self.names.note_of(tree, name)
    }

    /// The upper half of [`Self::name_note`] ([`NameHashes::note_upper_of`]).
    pub fn name_note_upper(&self, tree: u32, name: &[u8]) -> u32 {
        self.names.note_upper_of(tree, name)
    }

    /// Notes that a tree names object `i` ([`NameHashes::note`]).
    pub fn note_name(&self, i: u32, note: u64) {
        self.names.note(i, note);
    }

    /// The name hash the delta search sorts object `i` by (0: unknown);
    /// only once the scan is done.
    pub fn name_hash(&self, i: u32) -> u32 {
        self.names.get(i)
    }

    pub fn sha256(&self, i: u32) -> Option<ObjectId> {
        self.sha256[i as usize].get().copied().map(ObjectId::Sha256)
    }

    /// The SHA-256 name of an object being written: the passes name every
    /// object before they write it.
    pub fn written_name(&self, i: u32) -> ObjectId {
        self.sha256(i)
            .expect("objects are named before they are written")
    }

    pub fn set_sha256(&mut self, i: u32, id: [u8; 32]) {
        self.serial = next_serial();
        self.sha256[i as usize] = OnceLock::from(id);
    }

    /// Names object `i` through a shared reference (the map pass, beside
    /// the blob pass's readers); it must not have a name yet.
    pub fn name(&self, i: u32, id: [u8; 32]) {
        let set = self.sha256[i as usize].set(id);
        assert!(set.is_ok(), "object {i} was named twice");
    }

    /// Records the row an earlier run committed for object `i`.
    pub fn set_mapped(&mut self, i: u32, kind: ObjectKind, sha256: [u8; 32]) {
        self.set_origin(i, kind, sha256, Origin::Converted);
    }

    /// Records the row the shared pool's map has for object `i`.
    pub fn set_shared(&mut self, i: u32, kind: ObjectKind, sha256: [u8; 32]) {
        self.set_origin(i, kind, sha256, Origin::Shared);
    }

    fn set_origin(&mut self, i: u32, kind: ObjectKind, sha256: [u8; 32], origin: Origin) {
        self.serial = next_serial();
        self.kind[i as usize] = Some(kind);
        self.sha256[i as usize] = OnceLock::from(sha256);
        self.origin[i as usize] = origin;
    }

    /// Whether object `i` is converted already: by an earlier run, or in
    /// the shared pool.
    pub fn is_mapped(&self, i: u32) -> bool {
        self.origin[i as usize] != Origin::New
    }

    /// Marks mapped object `i` as written by an unfinished earlier run
    /// (its segment is not folded yet).
    pub fn set_carried(&mut self, i: u32) {
        debug_assert!(self.origin[i as usize] == Origin::Converted);
        self.serial = next_serial();
        self.origin[i as usize] = Origin::Carried;
    }

    /// Whether object `i` was written by an unfinished earlier run.
    pub fn is_carried(&self, i: u32) -> bool {
        self.origin[i as usize] == Origin::Carried
    }

    /// Whether this conversion's write passes plan object `i`: new, or
    /// carried over from an interrupted run.
    pub fn is_planned(&self, i: u32) -> bool {
        matches!(self.origin[i as usize], Origin::New | Origin::Carried)
    }

    /// Whether object `i` is the shared pool's (stored there, not in DEST).
    pub fn is_shared(&self, i: u32) -> bool {
        self.origin[i as usize] == Origin::Shared
    }

    /// Maps a SHA-1 id to its SHA-256 name, if the object is translated.
    /// The well-known ids (all-zero, empty tree, empty blob) map even when
    /// the source does not store them, as in git.
    pub fn map_sha1(&self, id: &ObjectId) -> Option<ObjectId> {
        if let Some(i) = self.find_id(id)
            && let Some(mapped) = self.sha256(i)
        {
            return Some(mapped);
        }
        well_known_pair(id).or_else(|| self.external.get(id))
    }

    /// interop: pairs consulted by [`ObjectTable::map_sha1`] for ids SOURCE
    /// does not store (gitlink targets from submodule maps, surrogates).
    pub fn set_external(&mut self, external: crate::gitlink_maps::external_map::ExternalMap) {
        self.external = external;
    }

    pub fn external(&self) -> &crate::gitlink_maps::external_map::ExternalMap {
        &self.external
    }

    /// Marks the commits whose unmapped mergetags are kept verbatim: the
    /// map pass translates them so and the journal records them.
    pub fn set_verbatim_mergetags(&mut self, mut commits: Vec<u32>) {
        commits.sort_unstable();
        commits.dedup();
        self.verbatim_mergetags = commits;
    }

    /// How many commits keep their unmapped mergetags verbatim.
    pub fn verbatim_mergetag_count(&self) -> usize {
        self.verbatim_mergetags.len()
    }

    /// Whether commit `i` keeps its unmapped mergetags verbatim.
    pub fn keeps_mergetags(&self, i: u32) -> bool {
        self.verbatim_mergetags.binary_search(&i).is_ok()
    }

    /// Indices of all objects.
    pub fn indices(&self) -> impl Iterator<Item = u32> + use<> {
        0..self.sha1.len() as u32
    }
}

/// git's always-known pairs: null id, empty tree, empty blob.
pub fn well_known_pair(id: &ObjectId) -> Option<ObjectId> {
    let (from, to) = (id.kind(), id.kind().other());
    if *id == from.null_id() {
        Some(to.null_id())
    } else if *id == from.empty_tree() {
        Some(to.empty_tree())
    } else if *id == from.empty_blob() {
        Some(to.empty_blob())
    } else {
        None
    }
}

/// Buckets up to this length are scanned linearly.
const LINEAR_BUCKET: usize = 8;

/// Equality of two SHA-1 ids as three word compares.
#[inline(always)]
fn same_id(a: &[u8; 20], b: &[u8; 20]) -> bool {
    let word = |x: &[u8; 20], at: usize| {
        u64::from_ne_bytes(x[at..at + 8].try_into().expect("8 bytes within 20"))
    };
    let tail = |x: &[u8; 20]| u32::from_ne_bytes(x[16..20].try_into().expect("4 bytes within 20"));
    (word(a, 0) ^ word(b, 0)) | (word(a, 8) ^ word(b, 8)) | u64::from(tail(a) ^ tail(b)) == 0
}

fn prefix(id: &[u8; 20], bits: u32) -> usize {
    let lead = u32::from_be_bytes([id[0], id[1], id[2], id[3]]);
    (lead >> (32 - bits)) as usize
}

/// A SHA-1-sized id for tests: uniform like real ones, distinct for each `n`.
#[cfg(test)]
pub(crate) fn test_id(n: u32) -> [u8; 20] {
    let mut raw = [0u8; 20];
    raw.copy_from_slice(
        &crate::object::sha256_object_id(ObjectKind::Blob, &n.to_be_bytes()).as_bytes()[..20],
    );
    raw
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::HashKind;

    use super::test_id as id;

    #[test]
    fn finds_every_id_and_only_those() {
        for n in [0u32, 1, 5, 300, 5000] {
            let ids: Vec<_> = (0..n).map(id).collect();
            let table = ObjectTable::new(
                ids.iter()
                    .map(|&i| (i, Location::Loose { dir: 0 }))
                    .collect(),
            );
            assert_eq!(table.len(), n as usize);
            for i in &ids {
                let at = table.find(i).expect("present");
                assert_eq!(table.sha1(at), ObjectId::Sha1(*i));
            }
            assert_eq!(table.find(&id(n + 1)), None);
        }
    }

    #[test]
    fn long_buckets_of_shared_prefixes_are_searched() {
        // Ids crafted to share their leading bytes land in one bucket.
        let ids: Vec<[u8; 20]> = (0..100u32)
            .map(|n| {
                let mut raw = id(n);
                raw[..4].copy_from_slice(&[0xab, 0xcd, 0xef, 0x01]);
                raw
            })
            .collect();
        let table = ObjectTable::new(
            ids.iter()
                .map(|&i| (i, Location::Loose { dir: 0 }))
                .collect(),
        );
        for i in &ids {
            assert_eq!(
                table.sha1(table.find(i).expect("present")),
                ObjectId::Sha1(*i)
            );
        }
        let mut absent = ids[0];
        absent[19] ^= 0xff;
        assert!(!ids.contains(&absent));
        assert_eq!(table.find(&absent), None);
    }

    #[test]
    fn packed_locations_round_trip() {
        for location in [
            Location::Loose { dir: 0 },
            Location::Packed { pack: 0, offset: 0 },
            Location::Packed {
                pack: 7,
                offset: 12,
            },
            Location::Packed {
                pack: (1 << 20) - 2,
                offset: (1 << OFFSET_BITS) - 1,
            },
        ] {
            assert_eq!(PackedLocation::new(location).get(), location);
        }
    }

    #[test]
    fn duplicates_keep_first_location() {
        let a = id(1);
        let table = ObjectTable::new(vec![
            (
                a,
                Location::Packed {
                    pack: 0,
                    offset: 12,
                },
            ),
            (a, Location::Loose { dir: 0 }),
        ]);
        assert_eq!(table.len(), 1);
        assert_eq!(
            table.location(0),
            Location::Packed {
                pack: 0,
                offset: 12
            }
        );
    }

    #[test]
    fn well_known_ids_map_without_storage() {
        let table = ObjectTable::new(Vec::new());
        assert_eq!(
            table.map_sha1(&HashKind::Sha1.empty_tree()),
            Some(HashKind::Sha256.empty_tree())
        );
        assert_eq!(
            table.map_sha1(&HashKind::Sha1.null_id()),
            Some(HashKind::Sha256.null_id())
        );
    }
}
