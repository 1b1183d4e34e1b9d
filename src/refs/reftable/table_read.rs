//! One `.ref` file read whole: its ref records and its log records, each
//! section walked block by block from its start. The indexes (ref, obj,
//! log) only speed up lookups of single keys, which a full read does not
//! need, so they are skipped.
//!
//! A table has no checksum but its footer's, so the structure is checked
//! as it is read: every block's framing and restart table, keys strictly
//! increasing, and each section ending where the footer says the next one
//! begins (a damaged block type or length would otherwise end a section
//! early and silently drop the refs after it).

use super::block_read::{self, Block, read_block};
use super::layout::{Footer, footer_size, header_size};
use super::records::{LogRecord, RefRecord};
use crate::hash::HashKind;

/// What one table holds, in key order.
pub struct TableContent {
    pub refs: Vec<RefRecord>,
    pub logs: Vec<LogRecord>,
}

/// Parses the whole table `file`, whose ids must be of kind `hash`.
pub fn parse_table(file: &[u8], hash: HashKind) -> Result<TableContent, String> {
    let footer = Footer::parse(file)?;
    if footer.hash != hash {
        return Err(format!(
            "the table holds {} ids, the repository uses {}",
            footer.hash.name(),
            hash.name()
        ));
    }
    let body = &file[..file.len() - footer_size(footer.version)];
    let header = header_size(footer.version);
    let first_kind = body.get(header).copied();

    let mut refs: Vec<RefRecord> = Vec::new();
    let ref_end = walk_section(body, &footer, 0, block_read::REF, |block| {
        let mut cursor = block.cursor();
        while let Some(value_type) = cursor.next_key()? {
            let record = RefRecord::decode(
                &cursor.key,
                value_type,
                &mut cursor.input,
                (hash, footer.min_update_index),
            )?;
            if refs.last().is_some_and(|last| last.name >= record.name) {
                return Err(format!("ref {} is out of order", record.name));
            }
            refs.push(record);
        }
        Ok(())
    })?;
    if first_kind == Some(block_read::REF) {
        let later = [
            footer.ref_index_position,
            footer.obj_position,
            footer.log_position,
        ];
        check_section_end("ref", ref_end, body.len(), &later)?;
    }

    let mut logs: Vec<LogRecord> = Vec::new();
    let log_start = match first_kind {
        Some(block_read::LOG) => Some(0),
        _ => (footer.log_position > 0).then_some(footer.log_position as usize),
    };
    if let Some(start) = log_start {
        let mut last_key = Vec::new();
        let log_end = walk_section(body, &footer, start, block_read::LOG, |block| {
            let mut cursor = block.cursor();
            while let Some(value_type) = cursor.next_key()? {
                if cursor.key <= last_key {
                    return Err(format!(
                        "log key {:?} is out of order",
                        String::from_utf8_lossy(&cursor.key)
                    ));
                }
                last_key.clone_from(&cursor.key);
                logs.push(LogRecord::decode(
                    &cursor.key,
                    value_type,
                    &mut cursor.input,
                    hash,
                )?);
            }
            Ok(())
        })?;
        check_section_end("log", log_end, body.len(), &[footer.log_index_position])?;
    }
    Ok(TableContent { refs, logs })
}

/// Walks the blocks of type `kind` from `start`, handing each to `each`;
/// returns where the section ends.
fn walk_section(
    body: &[u8],
    footer: &Footer,
    start: usize,
    kind: u8,
    mut each: impl FnMut(&Block<'_>) -> Result<(), String>,
) -> Result<usize, String> {
    let mut at = start;
    loop {
        let header_off = if at == 0 {
            header_size(footer.version)
        } else {
            0
        };
        let Some(block) = read_block(body, at, header_off, footer.block_size, kind)? else {
            return Ok(at);
        };
        each(&block).map_err(|e| format!("block at {at}: {e}"))?;
        at += block.file_len;
    }
}

/// A section must end at the start of a later section the footer names,
/// or at the end of the blocks.
fn check_section_end(what: &str, end: usize, body_len: usize, later: &[u64]) -> Result<(), String> {
    let ends_at_known = end >= body_len || later.iter().any(|&p| p > 0 && p as usize == end);
    if ends_at_known {
        Ok(())
    } else {
        Err(format!(
            "the {what} section ends at {end}, where no other section begins (damaged block)"
        ))
    }
}
