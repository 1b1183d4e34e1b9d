//! The in-memory object table: every source object, sorted by its SOURCE
//! name (SHA-1, or SHA-256 for a conversion from SHA-256), with where it is
//! stored, its kind and (once known) its DEST name.
//!
//! This is the hot map of the conversion: tree translation looks up every
//! entry here, so lookups go through a radix fan-out on the leading bits of
//! the name (uniformly distributed) and then a short binary search, instead
//! of SQLite (~6 us a lookup). Memory is ~80 bytes per object, the same in
//! both directions: the columns of names are as wide as their hashes.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::convert::source_objects::name_hashes::NameHashes;
use crate::hash::{Direction, ObjectId};
use crate::object::ObjectKind;
use crate::pack::NameHashVersion;

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

/// Where an object's DEST name comes from.
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
    /// Outside the ref selection: no selected ref reaches it, so it is
    /// neither written nor named nor mapped.
    LeftOut,
}

/// SOURCE's names, in table order: a flat column whose stride is the
/// width of SOURCE's hash, so an object costs the same in either direction
/// (20 + 36 bytes with its DEST name forward, 32 + 24 back).
pub enum SourceIds {
    Sha1(Vec<[u8; 20]>),
    Sha256(Vec<[u8; 32]>),
}

/// DEST's names, each set once: the map pass names trees, commits and tags
/// through a shared reference while the blob pass reads the blobs'.
enum DestNames {
    Sha256(Vec<OnceLock<[u8; 32]>>),
    Sha1(Vec<OnceLock<[u8; 20]>>),
}

/// A raw name of either width: what a table is built from.
pub trait RawId: Copy + Ord + Send {
    /// The column these names make.
    fn column(ids: Vec<Self>) -> SourceIds;
}

impl RawId for [u8; 20] {
    fn column(ids: Vec<Self>) -> SourceIds {
        SourceIds::Sha1(ids)
    }
}

impl RawId for [u8; 32] {
    fn column(ids: Vec<Self>) -> SourceIds {
        SourceIds::Sha256(ids)
    }
}

/// The table. Index `i` names the same object in every column.
pub struct ObjectTable {
    ids: SourceIds,
    /// The digest of `ids` ([`ObjectTable::fingerprint`]), made once: the
    /// scan's checkpoint and the reach records both start with it.
    fingerprint: OnceLock<[u8; 32]>,
    location: Vec<PackedLocation>,
    kind: Vec<Option<ObjectKind>>,
    names: DestNames,
    /// Inflated size (saturated at 4 GiB) of the objects this run decodes,
    /// for budgeting the memory of the passes that hold them.
    size: Vec<u32>,
    /// The name hashes of the delta search's sort, from the tree entries
    /// the scan reads (`name_hashes.rs`).
    name_hashes: NameHashes,
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
    /// The DEST names SOURCE's own map records for SOURCE's tags, when
    /// SOURCE is a git-rehash DEST (`source_map.rs`): sorted by index, few.
    recorded_tag_names: Vec<(u32, ObjectId)>,
    /// Unique to this table and to the DEST names it holds: a new one
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
    /// Builds the table from (SOURCE name, location) pairs, whose width
    /// says SOURCE's hash; an id seen twice (the same object in two packs,
    /// or packed and loose) keeps its first location.
    pub fn new<I: RawId>(mut objects: Vec<(I, Location)>) -> Self {
        objects.sort_by_key(|o| o.0);
        objects.dedup_by(|later, first| later.0 == first.0);
        let (ids, location): (Vec<I>, Vec<_>) = objects
            .into_iter()
            .map(|(id, location)| (id, PackedLocation::new(location)))
            .unzip();
        let n = ids.len();
        let ids = I::column(ids);
        // About one object per bucket, between 2^8 and 2^24 buckets.
        let bits = (usize::BITS - n.max(1).leading_zeros()).clamp(8, 24);
        let mut fanout = vec![0u32; (1usize << bits) + 1];
        let mut count = |lead: &[u8]| fanout[prefix(lead, bits) + 1] += 1;
        match &ids {
            SourceIds::Sha1(ids) => ids.iter().for_each(|id| count(id)),
            SourceIds::Sha256(ids) => ids.iter().for_each(|id| count(id)),
        }
        for i in 1..fanout.len() {
            fanout[i] += fanout[i - 1];
        }
        let names = match &ids {
            SourceIds::Sha1(_) => DestNames::Sha256((0..n).map(|_| OnceLock::new()).collect()),
            SourceIds::Sha256(_) => DestNames::Sha1((0..n).map(|_| OnceLock::new()).collect()),
        };
        ObjectTable {
            kind: vec![None; n],
            size: vec![0; n],
            name_hashes: NameHashes::new(n),
            names,
            origin: vec![Origin::New; n],
            ids,
            fingerprint: OnceLock::new(),
            location,
            fanout,
            bits,
            external: Default::default(),
            verbatim_mergetags: Vec::new(),
            recorded_tag_names: Vec::new(),
            serial: next_serial(),
        }
    }

    /// See the `serial` field.
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// Which way this table's objects are converted: from SOURCE's hash.
    pub fn direction(&self) -> Direction {
        match self.ids {
            SourceIds::Sha1(_) => Direction::FORWARD,
            SourceIds::Sha256(_) => Direction::REVERSE,
        }
    }

    pub fn len(&self) -> usize {
        self.location.len()
    }

    /// A digest of the id list: equal exactly when two tables hold the
    /// same objects, so that indices mean the same objects in both.
    pub fn fingerprint(&self) -> [u8; 32] {
        *self.fingerprint.get_or_init(|| {
            use sha2::Digest as _;
            let mut hasher = sha2::Sha256::new();
            hasher.update((self.len() as u64).to_le_bytes());
            match &self.ids {
                SourceIds::Sha1(ids) => hasher.update(ids.as_flattened()),
                SourceIds::Sha256(ids) => hasher.update(ids.as_flattened()),
            }
            hasher.finalize().into()
        })
    }

    /// The index of the object SOURCE names `id`, if SOURCE has it (never
    /// for an id of the other hash).
    #[inline]
    pub fn find(&self, id: &ObjectId) -> Option<u32> {
        match (&self.ids, id) {
            (SourceIds::Sha1(ids), ObjectId::Sha1(raw)) => self.find_in(ids, raw),
            (SourceIds::Sha256(ids), ObjectId::Sha256(raw)) => self.find_in(ids, raw),
            _ => None,
        }
    }

    /// Buckets hold about one id, so a short bucket is scanned with an
    /// inlined fixed-size equality (no `memcmp` call; this lookup runs for
    /// every tree entry, twice); a long bucket (ids crafted to share a
    /// prefix) falls back to binary search so it cannot go quadratic.
    #[inline]
    fn find_in<const N: usize>(&self, ids: &[[u8; N]], id: &[u8; N]) -> Option<u32> {
        let p = prefix(id, self.bits);
        let (lo, hi) = (self.fanout[p] as usize, self.fanout[p + 1] as usize);
        let bucket = &ids[lo..hi];
        let at = if bucket.len() <= LINEAR_BUCKET {
            bucket.iter().position(|candidate| same_id(candidate, id))
        } else {
            bucket.binary_search(id).ok()
        };
        at.map(|i| (lo + i) as u32)
    }

    /// SOURCE's name of object `i`.
    pub fn source_id(&self, i: u32) -> ObjectId {
        match &self.ids {
            SourceIds::Sha1(ids) => ObjectId::Sha1(ids[i as usize]),
            SourceIds::Sha256(ids) => ObjectId::Sha256(ids[i as usize]),
        }
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
        self.name_hashes.set_version(version);
    }

    /// Which name hash the scan's notes make.
    pub fn name_hash_version(&self) -> NameHashVersion {
        self.name_hashes.version()
    }

    /// What tree `tree` says of its entry `name` ([`NameHashes::note_of`]).
    pub fn name_note(&self, tree: u32, name: &[u8]) -> u64 {
        self.name_hashes.note_of(tree, name)
    }

    /// The upper half of [`Self::name_note`] ([`NameHashes::note_upper_of`]).
    pub fn name_note_upper(&self, tree: u32, name: &[u8]) -> u32 {
        self.name_hashes.note_upper_of(tree, name)
    }

    /// Notes that a tree names object `i` ([`NameHashes::note`]).
    pub fn note_name(&self, i: u32, note: u64) {
        self.name_hashes.note(i, note);
    }

    /// The name hash the delta search sorts object `i` by (0: unknown);
    /// only once the scan is done.
    pub fn name_hash(&self, i: u32) -> u32 {
        self.name_hashes.get(i)
    }

    /// DEST's name of object `i`, once it has one.
    pub fn dest_id(&self, i: u32) -> Option<ObjectId> {
        self.names.get(i)
    }

    /// DEST's name of an object being written: the passes name every
    /// object before they write it.
    pub fn written_name(&self, i: u32) -> ObjectId {
        self.dest_id(i)
            .expect("objects are named before they are written")
    }

    /// The pair of names of object `i` as the map's columns hold it
    /// (SHA-1, SHA-256), once it has its DEST name.
    pub fn map_columns(&self, i: u32) -> (ObjectId, ObjectId) {
        self.direction()
            .columns(self.source_id(i), self.written_name(i))
    }

    /// Sets object `i`'s DEST name, over any it had.
    pub fn set_dest(&mut self, i: u32, id: ObjectId) {
        self.serial = next_serial();
        self.names.replace(i, id);
    }

    /// Names object `i` through a shared reference (the map pass, beside
    /// the blob pass's readers); it must not have a name yet.
    pub fn name(&self, i: u32, id: ObjectId) {
        assert!(self.names.name(i, id), "object {i} was named twice");
    }

    /// Records the row an earlier run committed for object `i`.
    pub fn set_mapped(&mut self, i: u32, kind: ObjectKind, dest: ObjectId) {
        self.set_origin(i, kind, dest, Origin::Converted);
    }

    /// Records the row the shared pool's map has for object `i`.
    pub fn set_shared(&mut self, i: u32, kind: ObjectKind, dest: ObjectId) {
        self.set_origin(i, kind, dest, Origin::Shared);
    }

    fn set_origin(&mut self, i: u32, kind: ObjectKind, dest: ObjectId, origin: Origin) {
        self.set_dest(i, dest);
        self.kind[i as usize] = Some(kind);
        self.origin[i as usize] = origin;
    }

    /// Whether object `i` is converted already: by an earlier run, or in
    /// the shared pool.
    pub fn is_mapped(&self, i: u32) -> bool {
        matches!(
            self.origin[i as usize],
            Origin::Converted | Origin::Carried | Origin::Shared
        )
    }

    /// Whether object `i` is this run's to convert: no map row, and not
    /// left out of the selection.
    pub fn is_new(&self, i: u32) -> bool {
        self.origin[i as usize] == Origin::New
    }

    /// Leaves new object `i` out of the conversion (no selected ref
    /// reaches it): its name, a blob's from the scan, is forgotten, so
    /// nothing translates to it.
    pub fn leave_out(&mut self, i: u32) {
        debug_assert!(self.origin[i as usize] == Origin::New);
        self.serial = next_serial();
        self.names.forget(i);
        self.origin[i as usize] = Origin::LeftOut;
    }

    /// Whether object `i` is left out of the selection.
    pub fn is_left_out(&self, i: u32) -> bool {
        self.origin[i as usize] == Origin::LeftOut
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

    /// Maps a SOURCE name to its DEST name, if the object is translated.
    /// The well-known ids (all-zero, empty tree, empty blob) map even when
    /// the source does not store them, as in git.
    pub fn map_source(&self, id: &ObjectId) -> Option<ObjectId> {
        if let Some(i) = self.find(id)
            && let Some(mapped) = self.dest_id(i)
        {
            return Some(mapped);
        }
        well_known_pair(id).or_else(|| self.external.get(id))
    }

    /// interop: pairs consulted by [`ObjectTable::map_source`] for ids
    /// SOURCE does not store (gitlink targets from submodule maps,
    /// surrogates).
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

    /// Sets the names SOURCE's own map records for its tags (sorted by
    /// index).
    pub fn set_recorded_tag_names(&mut self, names: Vec<(u32, ObjectId)>) {
        debug_assert!(names.is_sorted_by_key(|&(at, _)| at));
        self.recorded_tag_names = names;
    }

    /// The DEST name SOURCE's own map records for tag `i`, if any.
    pub fn recorded_tag_name(&self, i: u32) -> Option<ObjectId> {
        let at = self
            .recorded_tag_names
            .binary_search_by_key(&i, |&(at, _)| at)
            .ok()?;
        Some(self.recorded_tag_names[at].1)
    }

    /// Indices of all objects.
    pub fn indices(&self) -> impl Iterator<Item = u32> + use<> {
        0..self.len() as u32
    }
}

impl DestNames {
    fn get(&self, i: u32) -> Option<ObjectId> {
        match self {
            DestNames::Sha256(names) => names[i as usize].get().copied().map(ObjectId::Sha256),
            DestNames::Sha1(names) => names[i as usize].get().copied().map(ObjectId::Sha1),
        }
    }

    /// Sets name `i` to `id` (of DEST's hash) unless it has one; whether it
    /// was set.
    fn name(&self, i: u32, id: ObjectId) -> bool {
        match (self, id) {
            (DestNames::Sha256(names), ObjectId::Sha256(raw)) => names[i as usize].set(raw).is_ok(),
            (DestNames::Sha1(names), ObjectId::Sha1(raw)) => names[i as usize].set(raw).is_ok(),
            (_, id) => panic!("object {i} named {id:?}, not in DEST's hash"),
        }
    }

    /// Forgets name `i`.
    fn forget(&mut self, i: u32) {
        match self {
            DestNames::Sha256(names) => names[i as usize] = OnceLock::new(),
            DestNames::Sha1(names) => names[i as usize] = OnceLock::new(),
        }
    }

    /// Sets name `i` to `id` (of DEST's hash), over any it had.
    fn replace(&mut self, i: u32, id: ObjectId) {
        match (self, id) {
            (DestNames::Sha256(names), ObjectId::Sha256(raw)) => {
                names[i as usize] = OnceLock::from(raw)
            }
            (DestNames::Sha1(names), ObjectId::Sha1(raw)) => {
                names[i as usize] = OnceLock::from(raw)
            }
            (_, id) => panic!("object {i} named {id:?}, not in DEST's hash"),
        }
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

/// Equality of two ids as word compares (three for SHA-1, four for
/// SHA-256), with no `memcmp` call.
#[inline(always)]
pub(crate) fn same_id<const N: usize>(a: &[u8; N], b: &[u8; N]) -> bool {
    let word = |x: &[u8; N], at: usize| {
        u64::from_ne_bytes(x[at..at + 8].try_into().expect("8 bytes within the id"))
    };
    let mut diff = 0u64;
    let mut at = 0;
    while at + 8 <= N {
        diff |= word(a, at) ^ word(b, at);
        at += 8;
    }
    if at + 4 <= N {
        let tail = |x: &[u8; N]| u32::from_ne_bytes(x[at..at + 4].try_into().expect("4 bytes"));
        diff |= u64::from(tail(a) ^ tail(b));
    }
    diff == 0
}

fn prefix(id: &[u8], bits: u32) -> usize {
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

    /// A table of `ids`, every one a loose object.
    fn loose_table<I: RawId>(ids: &[I]) -> ObjectTable {
        ObjectTable::new(
            ids.iter()
                .map(|&i| (i, Location::Loose { dir: 0 }))
                .collect(),
        )
    }

    #[test]
    fn finds_every_id_and_only_those() {
        for n in [0u32, 1, 5, 300, 5000] {
            let ids: Vec<_> = (0..n).map(id).collect();
            let table = loose_table(&ids);
            assert_eq!(table.len(), n as usize);
            for i in &ids {
                let at = table.find(&ObjectId::Sha1(*i)).expect("present");
                assert_eq!(table.source_id(at), ObjectId::Sha1(*i));
            }
            assert_eq!(table.find(&ObjectId::Sha1(id(n + 1))), None);
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
        let table = loose_table(&ids);
        for i in &ids {
            let i = ObjectId::Sha1(*i);
            assert_eq!(table.source_id(table.find(&i).expect("present")), i);
        }
        let mut absent = ids[0];
        absent[19] ^= 0xff;
        assert!(!ids.contains(&absent));
        assert_eq!(table.find(&ObjectId::Sha1(absent)), None);
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

    /// A table of SHA-256 names: found by them, never by a SHA-1 id, named
    /// in SHA-1, and an object costs as many bytes of names as forward.
    #[test]
    fn a_sha256_table_finds_its_names_and_names_objects_in_sha1() {
        let ids: Vec<[u8; 32]> = (0..300u32)
            .map(|n| {
                let ObjectId::Sha256(raw) =
                    crate::object::sha256_object_id(ObjectKind::Tree, &n.to_be_bytes())
                else {
                    unreachable!()
                };
                raw
            })
            .collect();
        let table = loose_table(&ids);
        assert_eq!(table.direction(), crate::hash::Direction::REVERSE);
        for raw in &ids {
            let id = ObjectId::Sha256(*raw);
            let at = table.find(&id).expect("present");
            assert_eq!(table.source_id(at), id);
            let short: [u8; 20] = raw[..20].try_into().unwrap();
            assert_eq!(table.find(&ObjectId::Sha1(short)), None);
        }
        table.name(7, ObjectId::Sha1([7; 20]));
        assert_eq!(table.dest_id(7), Some(ObjectId::Sha1([7; 20])));
        assert_eq!(
            table.map_columns(7),
            (ObjectId::Sha1([7; 20]), table.source_id(7))
        );
        let names = |source: usize, dest: usize| source + dest;
        assert_eq!(
            names(20, std::mem::size_of::<OnceLock<[u8; 32]>>()),
            names(32, std::mem::size_of::<OnceLock<[u8; 20]>>())
        );
    }

    #[test]
    fn well_known_ids_map_without_storage() {
        let table = ObjectTable::new(Vec::<([u8; 20], Location)>::new());
        assert_eq!(
            table.map_source(&HashKind::Sha1.empty_tree()),
            Some(HashKind::Sha256.empty_tree())
        );
        assert_eq!(
            table.map_source(&HashKind::Sha1.null_id()),
            Some(HashKind::Sha256.null_id())
        );
    }
}
