//! A byte-budgeted cache of inflated objects keyed by pack offset, for
//! random access through delta chains (git's `delta_base_cache`).
//!
//! Least recently used entries are evicted first. Objects larger than the
//! whole budget are never cached. The budget counts what the cache really
//! holds: each body's allocation, the bookkeeping around it, and the hash
//! table's buckets, so a cache of many small trees stays within its budget
//! as one of big blobs does.

use std::collections::{BTreeMap, HashMap};

use crate::object::ObjectKind;

/// Memory an entry holds besides its body's bytes and its hash-map
/// bucket (counted with the table, see [`DeltaCache::table_bytes`]): its
/// recency-order node and the allocator's header and rounding.
const ENTRY_OVERHEAD: usize = 48;

/// A hash-map bucket: key, entry and hashbrown's control byte.
const BUCKET_BYTES: usize = std::mem::size_of::<(u64, Cached)>() + 1;

/// What keeping a body of `bytes` costs against the budget.
fn cost(bytes: usize) -> usize {
    bytes + ENTRY_OVERHEAD
}

struct Cached {
    kind: ObjectKind,
    body: Vec<u8>,
    stamp: u64,
}

/// Recently resolved objects of one pack, keyed by entry offset.
pub struct DeltaCache {
    budget: usize,
    used: usize,
    clock: u64,
    entries: HashMap<u64, Cached>,
    /// stamp -> offset, oldest first.
    order: BTreeMap<u64, u64>,
    /// Which pack the cached offsets belong to (see [`DeltaCache::claim`]).
    owner: u64,
}

impl DeltaCache {
    /// A cache holding at most `byte_budget` bytes of object bodies.
    pub fn new(byte_budget: usize) -> Self {
        DeltaCache {
            budget: byte_budget,
            used: 0,
            clock: 0,
            entries: HashMap::new(),
            order: BTreeMap::new(),
            owner: 0,
        }
    }

    /// Offsets only mean something within one pack. A cache shared by
    /// readers of several packs (a thread-local one, say) is claimed with
    /// an id unique to the pack before each use; a different owner than
    /// last time empties it.
    pub fn claim(&mut self, owner: u64) {
        if self.owner != owner {
            self.release();
            self.owner = owner;
        }
    }

    /// Whether the cache holds offsets of the pack `owner` names (see
    /// [`DeltaCache::claim`]).
    pub fn is_owned_by(&self, owner: u64) -> bool {
        self.owner == owner
    }

    /// Drops every entry and the bookkeeping's capacity: what a cache
    /// holds after the last pass that reads through it.
    pub fn release(&mut self) {
        self.entries = HashMap::new();
        self.order.clear();
        self.used = 0;
    }

    /// The most bytes of bodies it holds.
    pub fn budget(&self) -> usize {
        self.budget
    }

    /// Bytes currently held, bookkeeping and hash table included.
    pub fn used_bytes(&self) -> usize {
        self.used + self.table_bytes()
    }

    /// The hash table's allocation. It is counted because it is not
    /// small: the table grows to twice the most entries the cache ever
    /// held, and a phase of many small objects (the scan's trees) leaves
    /// it at that size for the phases after it. Uncounted, it took the
    /// caches 30-50% over their budget (massif: 500k objects, two caches
    /// of 28 MiB each held 8 MiB of buckets each).
    fn table_bytes(&self) -> usize {
        // hashbrown keeps 1/8 of its buckets empty (one, below 8).
        (self.entries.capacity() * 8).div_ceil(7) * BUCKET_BYTES
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The object at `offset`, marked as recently used.
    pub fn get(&mut self, offset: u64) -> Option<(ObjectKind, &[u8])> {
        self.clock += 1;
        let entry = self.entries.get_mut(&offset)?;
        self.order.remove(&entry.stamp);
        entry.stamp = self.clock;
        self.order.insert(self.clock, offset);
        Some((entry.kind, &entry.body))
    }

    /// Caches the object at `offset`, evicting the least recently used
    /// entries to stay within the budget.
    pub fn insert(&mut self, offset: u64, kind: ObjectKind, mut body: Vec<u8>) {
        if cost(body.len()) > self.budget {
            return;
        }
        // Spare capacity (a body grown while a delta was applied) would be
        // held for as long as the entry is.
        body.shrink_to_fit();
        let cost = cost(body.capacity());
        self.remove(offset);
        self.evict_to(self.budget - cost);
        self.clock += 1;
        self.used += cost;
        self.order.insert(self.clock, offset);
        self.entries.insert(
            offset,
            Cached {
                kind,
                body,
                stamp: self.clock,
            },
        );
        // The insert may have grown the table.
        self.evict_to(self.budget);
    }

    /// Changes the budget, evicting the least recently used entries if the
    /// cache holds more than the new one.
    pub fn set_budget(&mut self, byte_budget: usize) {
        self.budget = byte_budget;
        self.evict_to(byte_budget);
    }

    /// Evicts the least recently used entries until at most `bytes` are
    /// held, then gives back a table that holds far fewer entries than it
    /// has room for (left so by an earlier phase of smaller objects).
    fn evict_to(&mut self, bytes: usize) {
        while self.used_bytes() > bytes {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            if let Some(old) = self.entries.remove(&oldest) {
                self.used -= cost(old.body.capacity());
            }
        }
        if self.entries.len() * 4 < self.entries.capacity() {
            self.entries.shrink_to(self.entries.len() * 2);
        }
    }

    fn remove(&mut self, offset: u64) {
        if let Some(old) = self.entries.remove(&offset) {
            self.order.remove(&old.stamp);
            self.used -= cost(old.body.capacity());
        }
    }
}

impl std::fmt::Debug for DeltaCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeltaCache")
            .field("budget", &self.budget)
            .field("used", &self.used_bytes())
            .field("entries", &self.entries.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache with room for `entries` bodies of `len` bytes, table included.
    fn room_for(entries: usize, len: usize) -> DeltaCache {
        let mut probe = DeltaCache::new(usize::MAX);
        for offset in 0..entries as u64 {
            probe.insert(offset, ObjectKind::Blob, vec![0; len]);
        }
        DeltaCache::new(probe.used_bytes())
    }

    #[test]
    fn evicts_least_recently_used_within_budget() {
        let mut c = room_for(2, 4);
        let budget = c.budget();
        c.insert(1, ObjectKind::Blob, vec![1; 4]);
        c.insert(2, ObjectKind::Blob, vec![2; 4]);
        assert_eq!(c.used_bytes(), budget);
        assert!(c.get(1).is_some()); // 2 is now the oldest
        c.insert(3, ObjectKind::Tree, vec![3; 4]);
        assert!(c.get(2).is_none());
        assert_eq!(c.get(1).map(|(_, b)| b.to_vec()), Some(vec![1; 4]));
        assert_eq!(c.get(3).map(|(k, _)| k), Some(ObjectKind::Tree));
        assert_eq!(c.used_bytes(), budget);
        c.insert(4, ObjectKind::Blob, vec![0; budget]); // larger than the budget
        assert!(c.get(4).is_none());
        c.insert(3, ObjectKind::Tree, vec![3; 2]); // replace keeps accounting right
        assert_eq!(c.used_bytes(), budget - 2);
        assert_eq!(c.len(), 2);
        c.claim(7);
        assert!(
            c.is_empty() && c.used_bytes() == 0,
            "another pack's offsets"
        );
        c.insert(3, ObjectKind::Tree, vec![3; 2]);
        c.claim(7);
        assert_eq!(c.len(), 1, "same owner keeps its entries");
        c.release();
        assert!(c.is_empty() && c.used_bytes() == 0 && c.get(3).is_none());
        c.insert(5, ObjectKind::Blob, vec![5; 4]);
        assert_eq!(
            c.used_bytes(),
            cost(4) + c.table_bytes(),
            "usable after a release"
        );
    }

    #[test]
    fn the_hash_table_counts_and_shrinks_after_many_small_entries() {
        let mut c = DeltaCache::new(4 << 20);
        for offset in 0..20_000 {
            c.insert(offset, ObjectKind::Tree, vec![0; 16]);
            assert!(c.used_bytes() <= c.budget());
        }
        let small_entries = c.len();
        assert!(c.table_bytes() > 1 << 20, "{} table bytes", c.table_bytes());
        // A phase of big objects: few entries, and the table shrinks with them.
        for offset in 0..100 {
            c.insert(1_000_000 + offset, ObjectKind::Blob, vec![0; 64 << 10]);
            assert!(c.used_bytes() <= c.budget());
        }
        assert!(c.len() < small_entries / 100);
        assert!(
            c.table_bytes() < 64 << 10,
            "{} table bytes",
            c.table_bytes()
        );
    }
}
