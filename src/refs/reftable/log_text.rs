//! A log record's fields and the text of a reflog line, both ways.
//!
//! The rest of the refs layer keeps a reflog entry as its two ids and the
//! untouched tail of its line, ` <name> <<email>> <time> <zone>[TAB<message>]LF`
//! (reflog.rs). A table stores the same as separate fields, the message
//! ending in a LF as git writes it (an entry without a message holds just
//! the LF). These two functions are the one translation between them, as
//! git's reftable backend makes it when it hands an entry to the reflog
//! code (`<name> <<email>>`, `%+05d` for the zone) and when it stores one.

use super::records::LogUpdate;
use crate::hash::ObjectId;

/// The reflog-line tail of `update` (everything after the new id).
pub fn tail_of(update: &LogUpdate) -> Vec<u8> {
    let mut out = Vec::with_capacity(update.name.len() + update.email.len() + 40);
    out.push(b' ');
    out.extend_from_slice(&update.name);
    out.extend_from_slice(b" <");
    out.extend_from_slice(&update.email);
    out.extend_from_slice(b"> ");
    let sign = if update.tz < 0 { '-' } else { '+' };
    out.extend_from_slice(
        format!("{} {sign}{:04}", update.time, update.tz.unsigned_abs()).as_bytes(),
    );
    let message = update
        .message
        .strip_suffix(b"\n")
        .unwrap_or(&update.message);
    if !message.is_empty() {
        out.push(b'\t');
        out.extend_from_slice(message);
    }
    out.push(b'\n');
    out
}

/// The log record content of a reflog line: its ids and the fields of its
/// tail (the message with a LF added); `None` when the tail is not
/// ` <name> <<email>> <time> <zone>` optionally followed by a TAB and a
/// message.
pub fn update_of(old: ObjectId, new: ObjectId, tail: &[u8]) -> Option<LogUpdate> {
    let line = tail.strip_prefix(b" ")?;
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let (ident, message) = match line.iter().position(|&b| b == b'\t') {
        Some(tab) => (&line[..tab], &line[tab + 1..]),
        None => (line, &[][..]),
    };
    let open = ident.iter().position(|&b| b == b'<')?;
    let close = open + ident[open..].iter().position(|&b| b == b'>')?;
    let name = ident[..open].trim_ascii_end();
    let email = &ident[open + 1..close];
    // The date follows the last '>', as git's ident parser reads it.
    let last_close = ident.iter().rposition(|&b| b == b'>')?;
    let date = std::str::from_utf8(&ident[last_close + 1..]).ok()?;
    let mut parts = date.split_ascii_whitespace();
    let time = parts.next()?.parse::<u64>().ok()?;
    let zone = parts.next()?;
    if parts.next().is_some() {
        return None;
    }
    let (negative, digits) = match zone.as_bytes().first()? {
        b'+' => (false, &zone[1..]),
        b'-' => (true, &zone[1..]),
        _ => return None,
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.parse::<i16>().ok()?;
    let tz = if negative { -magnitude } else { magnitude };
    let mut stored = message.to_vec();
    stored.push(b'\n');
    Some(LogUpdate {
        old,
        new,
        name: name.to_vec(),
        email: email.to_vec(),
        time,
        tz,
        message: stored,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::HashKind;

    fn update(tz: i16, message: &[u8]) -> LogUpdate {
        LogUpdate {
            old: HashKind::Sha1.null_id(),
            new: HashKind::Sha1.null_id(),
            name: b"C O Mitter".to_vec(),
            email: b"c@example.invalid".to_vec(),
            time: 1_700_000_000,
            tz,
            message: message.to_vec(),
        }
    }

    #[test]
    fn tails_read_and_write_both_ways() {
        for (tz, message, tail) in [
            (
                -130,
                &b"commit: one\n"[..],
                &b" C O Mitter <c@example.invalid> 1700000000 -0130\tcommit: one\n"[..],
            ),
            (
                530,
                b"\n",
                b" C O Mitter <c@example.invalid> 1700000000 +0530\n",
            ),
            (
                0,
                b"x\n",
                b" C O Mitter <c@example.invalid> 1700000000 +0000\tx\n",
            ),
        ] {
            let u = update(tz, message);
            assert_eq!(tail_of(&u), tail);
            assert_eq!(update_of(u.old, u.new, tail), Some(u));
        }
    }

    #[test]
    fn an_empty_message_without_lf_reads_as_no_message() {
        assert_eq!(
            tail_of(&update(100, b"")),
            b" C O Mitter <c@example.invalid> 1700000000 +0100\n"
        );
    }

    #[test]
    fn tails_that_are_no_ident_are_refused() {
        for bad in [
            &b"C <c> 1 +0000\n"[..],
            b" C c 1 +0000\n",
            b" C <c> x +0000\n",
            b" C <c> 1 0000\n",
            b" C <c> 1 +0000 extra\n",
        ] {
            let null = HashKind::Sha1.null_id();
            assert_eq!(
                update_of(null, null, bad),
                None,
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
