//! The records of ref and log blocks: what follows each record's key.
//!
//! ```text
//! ref:  varint(update_index - min_update_index) value
//!       value_type 0: deletion (a tombstone), 1: id, 2: id + peeled id,
//!       3: varint(len) symbolic target
//! log:  key = refname '\0' u64(0xffffffffffffffff - update_index)
//!       log_type 0: deletion, 1: old id, new id, varint(len) name,
//!       varint(len) email, varint(time), i16(tz), varint(len) message
//! ```
//!
//! The zone is stored as git writes it in a reflog line read as a decimal
//! number: `-0130` is -130, not -90 minutes.

use super::input::Input;
use super::varint;
use crate::hash::{HashKind, ObjectId};

/// What a ref record says about its ref.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefValue {
    /// The ref was deleted: older tables' records for it no longer count.
    Deletion,
    Direct(ObjectId),
    /// An annotated tag and the object it finally points at.
    Peeled {
        value: ObjectId,
        peeled: ObjectId,
    },
    Symbolic(String),
}

/// One ref record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefRecord {
    pub name: String,
    pub update_index: u64,
    pub value: RefValue,
}

/// The content of a log record that is not a deletion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogUpdate {
    pub old: ObjectId,
    pub new: ObjectId,
    pub name: Vec<u8>,
    /// Without the angle brackets.
    pub email: Vec<u8>,
    pub time: u64,
    /// The zone as a signed decimal `HHMM` (`+0530` is 530).
    pub tz: i16,
    /// git ends every message it writes with a LF; empty means no message.
    pub message: Vec<u8>,
}

/// One log record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRecord {
    pub refname: String,
    pub update_index: u64,
    /// `None`: a deletion, removing the entry of this key from older tables.
    pub update: Option<LogUpdate>,
}

impl RefRecord {
    /// The 3-bit type stored with the key.
    pub fn value_type(&self) -> u8 {
        match self.value {
            RefValue::Deletion => 0,
            RefValue::Direct(_) => 1,
            RefValue::Peeled { .. } => 2,
            RefValue::Symbolic(_) => 3,
        }
    }

    /// Appends what follows the key.
    pub fn encode_value(&self, min_update_index: u64, out: &mut Vec<u8>) {
        varint::write(out, self.update_index - min_update_index);
        match &self.value {
            RefValue::Deletion => {}
            RefValue::Direct(id) => out.extend_from_slice(id.as_bytes()),
            RefValue::Peeled { value, peeled } => {
                out.extend_from_slice(value.as_bytes());
                out.extend_from_slice(peeled.as_bytes());
            }
            RefValue::Symbolic(target) => write_string(out, target.as_bytes()),
        }
    }

    /// Decodes the record whose key is `key`, its value next in `input`.
    pub fn decode(
        key: &[u8],
        value_type: u8,
        input: &mut Input<'_>,
        (hash, min_update_index): (HashKind, u64),
    ) -> Result<RefRecord, String> {
        let name = std::str::from_utf8(key)
            .map_err(|_| format!("ref name {key:?} is not UTF-8"))?
            .to_string();
        let delta = input.varint()?;
        let update_index = min_update_index
            .checked_add(delta)
            .ok_or("update index overflows")?;
        let value = match value_type {
            0 => RefValue::Deletion,
            1 => RefValue::Direct(input.id(hash)?),
            2 => RefValue::Peeled {
                value: input.id(hash)?,
                peeled: input.id(hash)?,
            },
            3 => {
                let target = input.string()?;
                RefValue::Symbolic(
                    String::from_utf8(target.to_vec())
                        .map_err(|_| format!("symbolic target of {name} is not UTF-8"))?,
                )
            }
            other => return Err(format!("ref {name} has unknown value type {other}")),
        };
        Ok(RefRecord {
            name,
            update_index,
            value,
        })
    }
}

impl LogRecord {
    /// The key: refname, NUL, the update index reversed so that newer
    /// entries sort first.
    pub fn key(&self) -> Vec<u8> {
        let mut key = Vec::with_capacity(self.refname.len() + 9);
        key.extend_from_slice(self.refname.as_bytes());
        key.push(0);
        key.extend_from_slice(&(u64::MAX - self.update_index).to_be_bytes());
        key
    }

    /// The 3-bit type stored with the key.
    pub fn value_type(&self) -> u8 {
        u8::from(self.update.is_some())
    }

    /// Appends what follows the key.
    pub fn encode_value(&self, out: &mut Vec<u8>) {
        let Some(update) = &self.update else {
            return;
        };
        out.extend_from_slice(update.old.as_bytes());
        out.extend_from_slice(update.new.as_bytes());
        write_string(out, &update.name);
        write_string(out, &update.email);
        varint::write(out, update.time);
        out.extend_from_slice(&update.tz.to_be_bytes());
        write_string(out, &update.message);
    }

    /// Decodes the record whose key is `key`, its value next in `input`.
    pub fn decode(
        key: &[u8],
        value_type: u8,
        input: &mut Input<'_>,
        hash: HashKind,
    ) -> Result<LogRecord, String> {
        let split = key
            .len()
            .checked_sub(9)
            .filter(|&at| key[at] == 0)
            .ok_or_else(|| format!("log key {key:?} does not end in NUL and an update index"))?;
        let refname = std::str::from_utf8(&key[..split])
            .map_err(|_| format!("log ref name {:?} is not UTF-8", &key[..split]))?
            .to_string();
        let reversed = u64::from_be_bytes(key[split + 1..].try_into().expect("8 bytes"));
        let update = match value_type {
            0 => None,
            1 => Some(LogUpdate {
                old: input.id(hash)?,
                new: input.id(hash)?,
                name: input.string()?.to_vec(),
                email: input.string()?.to_vec(),
                time: input.varint()?,
                tz: i16::from_be_bytes(input.take(2)?.try_into().expect("2 bytes")),
                message: input.string()?.to_vec(),
            }),
            other => return Err(format!("log of {refname} has unknown type {other}")),
        };
        Ok(LogRecord {
            refname,
            update_index: u64::MAX - reversed,
            update,
        })
    }
}

fn write_string(out: &mut Vec<u8>, bytes: &[u8]) {
    varint::write(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_values_round_trip() {
        let id = ObjectId::Sha256([7; 32]);
        for value in [
            RefValue::Deletion,
            RefValue::Direct(id),
            RefValue::Peeled {
                value: id,
                peeled: ObjectId::Sha256([8; 32]),
            },
            RefValue::Symbolic("refs/heads/main".into()),
        ] {
            let record = RefRecord {
                name: "refs/tags/x".into(),
                update_index: 12,
                value,
            };
            let mut out = Vec::new();
            record.encode_value(10, &mut out);
            let mut input = Input::new(&out, 0);
            let back = RefRecord::decode(
                b"refs/tags/x",
                record.value_type(),
                &mut input,
                (HashKind::Sha256, 10),
            );
            assert_eq!(back, Ok(record));
            assert!(input.at_end());
        }
    }

    #[test]
    fn log_records_round_trip_and_sort_newest_first() {
        let update = LogUpdate {
            old: ObjectId::Sha1([0; 20]),
            new: ObjectId::Sha1([1; 20]),
            name: b"C O Mitter".to_vec(),
            email: b"c@example.invalid".to_vec(),
            time: 1_700_000_000,
            tz: -130,
            message: b"commit: x\n".to_vec(),
        };
        for update in [Some(update), None] {
            let record = LogRecord {
                refname: "HEAD".into(),
                update_index: 3,
                update,
            };
            let mut out = Vec::new();
            record.encode_value(&mut out);
            let back = LogRecord::decode(
                &record.key(),
                record.value_type(),
                &mut Input::new(&out, 0),
                HashKind::Sha1,
            );
            assert_eq!(back, Ok(record));
        }
        let at = |update_index| {
            LogRecord {
                refname: "HEAD".into(),
                update_index,
                update: None,
            }
            .key()
        };
        assert!(at(5) < at(4));
    }

    #[test]
    fn truncated_values_are_refused() {
        let sha1 = (HashKind::Sha1, 0);
        let mut short = Input::new(&[0, 1, 2], 0);
        assert!(RefRecord::decode(b"refs/x", 1, &mut short, sha1).is_err());
        let mut empty = Input::new(&[], 0);
        assert!(LogRecord::decode(b"HEAD", 1, &mut empty, HashKind::Sha1).is_err());
        let mut unknown = Input::new(&[0], 0);
        assert!(RefRecord::decode(b"refs/x", 5, &mut unknown, sha1).is_err());
    }
}
