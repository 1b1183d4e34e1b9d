//! The scan's checkpoint: what each finished batch of the scan learned,
//! appended to `rehash/scan-checkpoint` and fsynced, so a run killed during
//! the scan (or after it, before its packs are written) does not decode
//! those objects again.
//!
//! Records name objects by their index in the object table, which is the
//! rank of their SOURCE name among all of SOURCE's objects. The file starts with
//! a fingerprint of that id list (and of the name hash version the notes
//! below were taken for), so a checkpoint is used only against the same
//! object set; where the objects are stored (packs, loose, a repack in
//! between) does not matter. Each batch is one chunk with its own length
//! and SHA-256 (`convert/chunk_log.rs`): a chunk cut short by a kill is
//! detected and dropped, and the file is truncated back to the last whole
//! chunk before appending.
//!
//! Layout (integers little-endian):
//! ```text
//! header  "git-rehash scan checkpoint 6\n" fingerprint[32] objects:u64
//! chunk   "SCAN" len:u64 payload[len] sha256(payload)[32]
//! payload bytes:u64 named:u32 edges:u32 gitlinks:u32 mergetags:u32 names:u32
//!         leaned:u32
//!         named     (index:u32 kind:u8 size:u32 [DEST name if blob])*
//!         edges     (dependent:u32 dependency:u32)*
//!         gitlinks  (tree:u32 target[SOURCE name] name_len:u32 name)*
//!         mergetags (commit:u32 target_len:u8 target[target_len])*
//!         names     (object:u32 note:u64)*
//!         leaned    (tree:u32 base:u32)*
//! ```
//!
//! Names are as wide as their hash: SOURCE's (20 bytes for SHA-1, 32 for
//! SHA-256) and DEST's, the other (the fingerprint tells the two apart).

use std::io::Write;
use std::path::Path;

use crate::convert::chunk_log::{ChunkFormat, ChunkLog, remove_scratch};
use crate::convert::error::ConvertError;
use crate::convert::error::findings::{UnmappedGitlink, UnmappedMergetag};
use crate::hash::{Direction, HashKind, ObjectId};
use crate::object::ObjectKind;

const MAGIC: &[u8] = b"git-rehash scan checkpoint 6\n";
const FORMAT: ChunkFormat = ChunkFormat {
    magic: *b"SCAN",
    checksum: HashKind::Sha256,
};

/// An object's table index, kind, DEST name when it is a blob, and size
/// (saturated at `u32::MAX`).
pub type Named = (u32, ObjectKind, Option<ObjectId>, u32);

/// What one or more batches of the scan recorded.
#[derive(Debug, Default)]
pub struct ScanRecords {
    pub named: Vec<Named>,
    pub edges: Vec<(u32, u32)>,
    pub gitlinks: Vec<UnmappedGitlink>,
    pub mergetags: Vec<UnmappedMergetag>,
    /// Name notes the scanned trees gave their entries (object, note;
    /// `convert/source_objects/name_hashes.rs`):
    /// the delta search's order, which must not depend on where a run was
    /// interrupted. Only the notes that lowered an object's hash are kept.
    pub names: Vec<(u32, u64)>,
    /// (tree, base): trees whose file entries shared with their delta
    /// base were not recorded as edges, because the base's record holds
    /// them. Kept only when blob edges are recorded (a ref selection's
    /// walk, `convert/plan/selection.rs`, which reads such a tree again
    /// when its base is not reached).
    pub leaned: Vec<(u32, u32)>,
    /// Inflated bytes of the named objects.
    pub bytes: u64,
}

impl ScanRecords {
    pub fn extend(&mut self, other: ScanRecords) {
        self.named.extend(other.named);
        self.edges.extend(other.edges);
        self.gitlinks.extend(other.gitlinks);
        self.mergetags.extend(other.mergetags);
        self.names.extend(other.names);
        self.leaned.extend(other.leaned);
        self.bytes += other.bytes;
    }
}

/// The open checkpoint file, positioned after its last whole chunk.
pub struct ScanCheckpoint {
    log: ChunkLog,
}

impl ScanCheckpoint {
    /// Opens the checkpoint at `path` for an object set with `fingerprint`
    /// and `objects` entries converted in `direction`, returning the
    /// records of every whole chunk. A missing file, or one made for
    /// another object set, starts empty.
    pub fn open(
        path: &Path,
        fingerprint: &[u8; 32],
        objects: u64,
        direction: Direction,
    ) -> Result<(Self, ScanRecords), ConvertError> {
        let mut header = Vec::with_capacity(MAGIC.len() + 32 + 8);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(fingerprint);
        header.extend_from_slice(&objects.to_le_bytes());
        let mut records = ScanRecords::default();
        let log = ChunkLog::open(path, &header, FORMAT, |payload| {
            match decode_payload(payload, objects, direction) {
                Some(chunk) => {
                    records.extend(chunk);
                    true
                }
                None => false,
            }
        })?;
        Ok((ScanCheckpoint { log }, records))
    }

    /// Appends one batch's records and makes them durable. The chunk is
    /// encoded as it is written: a batch of git.git's trees notes millions
    /// of names, and the payload built in memory, then copied into the
    /// chunk, was the scan's peak (about 100 MB held for a moment, beside
    /// everything the scan holds).
    pub fn append(&mut self, records: &ScanRecords) -> Result<(), ConvertError> {
        self.log.append(true, |out| encode_payload(records, out))
    }
}

/// Removes the checkpoint (its run finished: nothing left to resume).
pub fn remove(path: &Path) -> Result<(), ConvertError> {
    remove_scratch(path)
}

/// Writes the payload of `records` (the layout above) to `out`.
fn encode_payload(records: &ScanRecords, out: &mut impl Write) -> std::io::Result<()> {
    out.write_all(&records.bytes.to_le_bytes())?;
    for count in [
        records.named.len(),
        records.edges.len(),
        records.gitlinks.len(),
        records.mergetags.len(),
        records.names.len(),
        records.leaned.len(),
    ] {
        out.write_all(&(count as u32).to_le_bytes())?;
    }
    for &(at, kind, name, size) in &records.named {
        out.write_all(&at.to_le_bytes())?;
        out.write_all(&[kind.pack_code()])?;
        out.write_all(&size.to_le_bytes())?;
        if let Some(id) = name {
            out.write_all(id.as_bytes())?;
        }
    }
    for &(dependent, dependency) in &records.edges {
        out.write_all(&dependent.to_le_bytes())?;
        out.write_all(&dependency.to_le_bytes())?;
    }
    for link in &records.gitlinks {
        out.write_all(&link.tree.to_le_bytes())?;
        out.write_all(link.target.as_bytes())?;
        out.write_all(&(link.name.len() as u32).to_le_bytes())?;
        out.write_all(&link.name)?;
    }
    for tag in &records.mergetags {
        out.write_all(&tag.commit.to_le_bytes())?;
        let target = tag.target.as_bytes();
        out.write_all(&[target.len() as u8])?;
        out.write_all(target)?;
    }
    for &(at, note) in &records.names {
        out.write_all(&at.to_le_bytes())?;
        out.write_all(&note.to_le_bytes())?;
    }
    for &(tree, base) in &records.leaned {
        out.write_all(&tree.to_le_bytes())?;
        out.write_all(&base.to_le_bytes())?;
    }
    Ok(())
}

/// Decodes a payload whose checksum matched; `None` if it does not parse
/// or names an index outside the table (then it cannot be ours).
fn decode_payload(payload: &[u8], objects: u64, direction: Direction) -> Option<ScanRecords> {
    let id = |r: &mut Reader<'_>, hash: HashKind| ObjectId::from_raw(hash, r.take(hash.raw_len())?);
    let mut r = Reader(payload);
    let bytes = r.u64()?;
    let (named, edges, gitlinks, mergetags) = (r.u32()?, r.u32()?, r.u32()?, r.u32()?);
    let (names, leaned) = (r.u32()?, r.u32()?);
    let index = |r: &mut Reader<'_>| r.u32().filter(|&i| u64::from(i) < objects);
    let mut records = ScanRecords {
        bytes,
        ..Default::default()
    };
    for _ in 0..named {
        let at = index(&mut r)?;
        let kind = ObjectKind::from_pack_code(r.take(1)?[0])?;
        let size = r.u32()?;
        let name = match kind {
            ObjectKind::Blob => Some(id(&mut r, direction.dest())?),
            _ => None,
        };
        records.named.push((at, kind, name, size));
    }
    for _ in 0..edges {
        records.edges.push((index(&mut r)?, index(&mut r)?));
    }
    for _ in 0..gitlinks {
        let tree = index(&mut r)?;
        let target = id(&mut r, direction.source())?;
        let len = r.u32()? as usize;
        let name = r.take(len)?.to_vec();
        records
            .gitlinks
            .push(UnmappedGitlink { tree, name, target });
    }
    for _ in 0..mergetags {
        let commit = index(&mut r)?;
        let len = r.take(1)?[0] as usize;
        let raw = r.take(len)?;
        let target = [HashKind::Sha1, HashKind::Sha256]
            .into_iter()
            .find_map(|kind| ObjectId::from_raw(kind, raw))?;
        records.mergetags.push(UnmappedMergetag { commit, target });
    }
    for _ in 0..names {
        records.names.push((index(&mut r)?, r.u64()?));
    }
    for _ in 0..leaned {
        records.leaned.push((index(&mut r)?, index(&mut r)?));
    }
    r.0.is_empty().then_some(records)
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;
    use std::os::unix::fs::FileExt as _;

    fn sample(seed: u32) -> ScanRecords {
        ScanRecords {
            named: vec![
                (
                    seed,
                    ObjectKind::Blob,
                    Some(ObjectId::Sha256([seed as u8; 32])),
                    7,
                ),
                (seed + 1, ObjectKind::Tree, None, seed),
                (seed + 2, ObjectKind::Commit, None, u32::MAX),
            ],
            edges: vec![(seed + 2, seed + 1)],
            gitlinks: vec![UnmappedGitlink {
                tree: seed + 1,
                name: b"sub".to_vec(),
                target: ObjectId::Sha1([7; 20]),
            }],
            mergetags: vec![
                UnmappedMergetag {
                    commit: seed + 2,
                    target: ObjectId::Sha1([9; 20]),
                },
                UnmappedMergetag {
                    commit: seed + 2,
                    target: ObjectId::Sha256([9; 32]),
                },
            ],
            names: vec![(seed, 0x8000_0001_0000_0002), (seed + 1, 7)],
            leaned: vec![(seed + 1, seed)],
            bytes: 100 + u64::from(seed),
        }
    }

    type Summary = (
        Vec<Named>,
        Vec<(u32, u32)>,
        usize,
        Vec<UnmappedMergetag>,
        Vec<(u32, u64)>,
        Vec<(u32, u32)>,
        u64,
    );

    fn summary(r: &ScanRecords) -> Summary {
        let (named, edges, mergetags) = (r.named.clone(), r.edges.clone(), r.mergetags.clone());
        let (names, leaned) = (r.names.clone(), r.leaned.clone());
        (
            named,
            edges,
            r.gitlinks.len(),
            mergetags,
            names,
            leaned,
            r.bytes,
        )
    }

    #[test]
    fn chunks_survive_reopening_and_a_torn_tail_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scan-checkpoint");
        let fp = [1u8; 32];
        let (mut ck, restored) = ScanCheckpoint::open(&path, &fp, 100, Direction::FORWARD).unwrap();
        assert!(restored.named.is_empty());
        ck.append(&sample(10)).unwrap();
        ck.append(&sample(20)).unwrap();
        drop(ck);

        // A third chunk torn in the middle, as a kill would leave it.
        let whole = std::fs::metadata(&path).unwrap().len();
        let (mut ck, _) = ScanCheckpoint::open(&path, &fp, 100, Direction::FORWARD).unwrap();
        ck.append(&sample(30)).unwrap();
        drop(ck);
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(whole + 20).unwrap();

        let (mut ck, restored) = ScanCheckpoint::open(&path, &fp, 100, Direction::FORWARD).unwrap();
        let mut expected = sample(10);
        expected.extend(sample(20));
        assert_eq!(summary(&restored), summary(&expected));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
        // Appending after the repair gives three whole chunks.
        ck.append(&sample(30)).unwrap();
        drop(ck);
        let (_, restored) = ScanCheckpoint::open(&path, &fp, 100, Direction::FORWARD).unwrap();
        expected.extend(sample(30));
        assert_eq!(summary(&restored), summary(&expected));
    }

    #[test]
    fn a_chunk_whose_length_was_not_written_yet_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scan-checkpoint");
        let fp = [1u8; 32];
        let (mut ck, _) = ScanCheckpoint::open(&path, &fp, 100, Direction::FORWARD).unwrap();
        ck.append(&sample(10)).unwrap();
        let whole = std::fs::metadata(&path).unwrap().len();
        ck.append(&sample(20)).unwrap();
        drop(ck);
        // A kill before the second chunk's length went in over its 0.
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.write_all_at(&0u64.to_le_bytes(), whole + 4).unwrap();
        drop(file);

        let (_, restored) = ScanCheckpoint::open(&path, &fp, 100, Direction::FORWARD).unwrap();
        assert_eq!(summary(&restored), summary(&sample(10)));
        assert_eq!(std::fs::metadata(&path).unwrap().len(), whole);
    }

    #[test]
    fn another_object_set_or_a_flipped_byte_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("scan-checkpoint");
        let (mut ck, _) = ScanCheckpoint::open(&path, &[1; 32], 100, Direction::FORWARD).unwrap();
        ck.append(&sample(10)).unwrap();
        drop(ck);
        let (_, restored) = ScanCheckpoint::open(&path, &[2; 32], 100, Direction::FORWARD).unwrap();
        assert!(restored.named.is_empty(), "other fingerprint");

        let (mut ck, _) = ScanCheckpoint::open(&path, &[2; 32], 100, Direction::FORWARD).unwrap();
        ck.append(&sample(10)).unwrap();
        drop(ck);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 40;
        bytes[last] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let (_, restored) = ScanCheckpoint::open(&path, &[2; 32], 100, Direction::FORWARD).unwrap();
        assert!(restored.named.is_empty(), "corrupt chunk");

        // Indices beyond the table cannot come from this object set.
        let (mut ck, _) = ScanCheckpoint::open(&path, &[3; 32], 100, Direction::FORWARD).unwrap();
        ck.append(&sample(98)).unwrap();
        drop(ck);
        let (_, restored) = ScanCheckpoint::open(&path, &[3; 32], 100, Direction::FORWARD).unwrap();
        assert!(restored.named.is_empty(), "index out of range");
    }
}
