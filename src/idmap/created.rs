//! Objects the conversion created in DEST, with no counterpart in SOURCE's
//! hash (migrations 0003 and 0011, `created`): recorded so that `verify`
//! can tell them from stray objects, and so that DEST's refs to them are
//! explained. They are named in DEST's hash, either one.

use rusqlite::params;

use super::IdMap;
use super::error::IdMapError;
use crate::hash::{HashKind, ObjectId};
use crate::object::ObjectKind;

/// One created object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatedRow {
    /// Its name in DEST's hash.
    pub name: ObjectId,
    pub kind: ObjectKind,
    /// Why it exists (`rekey-notes`).
    pub reason: String,
    /// The ref that points to it instead of the translation of SOURCE's
    /// value, and that translation (what it stands on).
    pub stands_for: Option<(String, ObjectId)>,
}

impl IdMap {
    /// Records created objects; re-recording the same object is a no-op
    /// (re-runs create the same objects: their content is deterministic).
    pub fn record_created(&mut self, rows: &[CreatedRow]) -> Result<(), IdMapError> {
        let sql = IdMapError::sql_at(&self.path);
        let tx = self.conn.transaction().map_err(sql)?;
        {
            let mut stmt = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO created (name, type, reason, ref, base)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(sql)?;
            for row in rows {
                let (ref_name, base) = match &row.stands_for {
                    Some((name, base)) => (Some(name.as_str()), Some(base.as_bytes())),
                    None => (None, None),
                };
                stmt.execute(params![
                    row.name.as_bytes(),
                    row.kind.pack_code(),
                    row.reason,
                    ref_name,
                    base
                ])
                .map_err(sql)?;
            }
        }
        tx.commit().map_err(sql)
    }

    /// Every created object, by name.
    pub fn created(&self) -> Result<Vec<CreatedRow>, IdMapError> {
        let mut stmt = self
            .conn
            .prepare("SELECT name, type, reason, ref, base FROM created ORDER BY name")
            .map_err(|e| self.sql(e))?;
        let raw = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, Vec<u8>>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<Vec<u8>>>(4)?,
                ))
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.sql(e))?;
        let corrupt = |reason: String| IdMapError::CorruptRow {
            path: self.path.clone(),
            reason,
        };
        raw.into_iter()
            .map(|(raw, code, reason, ref_name, base)| {
                let name = id_of(&raw)
                    .ok_or_else(|| corrupt(format!("created: a name of {} bytes", raw.len())))?;
                let kind = u8::try_from(code)
                    .ok()
                    .and_then(ObjectKind::from_pack_code)
                    .ok_or_else(|| corrupt(format!("created: type {code} for {name}")))?;
                let base = base
                    .map(|b| {
                        id_of(&b)
                            .filter(|b| b.kind() == name.kind())
                            .ok_or_else(|| corrupt(format!("created: base of {name}")))
                    })
                    .transpose()?;
                Ok(CreatedRow {
                    name,
                    kind,
                    reason,
                    stands_for: ref_name.zip(base),
                })
            })
            .collect()
    }
}

/// The id `raw` is, by its length.
fn id_of(raw: &[u8]) -> Option<ObjectId> {
    [HashKind::Sha1, HashKind::Sha256]
        .into_iter()
        .find_map(|kind| ObjectId::from_raw(kind, raw))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_rows_round_trip_and_rerecording_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let mut map = IdMap::open_rw(&dir.path().join("map.sqlite")).unwrap();
        let rows = vec![
            CreatedRow {
                name: ObjectId::Sha256([1; 32]),
                kind: ObjectKind::Tree,
                reason: "rekey-notes".into(),
                stands_for: None,
            },
            CreatedRow {
                name: ObjectId::Sha256([2; 32]),
                kind: ObjectKind::Commit,
                reason: "rekey-notes".into(),
                stands_for: Some(("refs/notes/commits".into(), ObjectId::Sha256([3; 32]))),
            },
        ];
        map.record_created(&rows).unwrap();
        map.record_created(&rows).unwrap();
        assert_eq!(map.created().unwrap(), rows);
        // A conversion into SHA-1 creates SHA-1 objects.
        let sha1 = vec![CreatedRow {
            name: ObjectId::Sha1([4; 20]),
            kind: ObjectKind::Commit,
            reason: "rekey-notes".into(),
            stands_for: Some(("refs/notes/commits".into(), ObjectId::Sha1([5; 20]))),
        }];
        map.record_created(&sha1).unwrap();
        assert_eq!(map.created().unwrap(), [rows, sha1].concat());
        assert_eq!(map.count().unwrap(), 0, "no pairs were added");
    }
}
