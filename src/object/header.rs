//! The `"<type> SP <decimal length> NUL"` prefix that is hashed before every
//! object body and stored at the start of every loose object.

use super::ObjectKind;

/// The header git hashes in front of a body of `len` bytes.
pub fn object_header(kind: ObjectKind, len: usize) -> Vec<u8> {
    let mut h = Vec::with_capacity(24);
    h.extend_from_slice(kind.as_str().as_bytes());
    h.push(b' ');
    h.extend_from_slice(len.to_string().as_bytes());
    h.push(0);
    h
}

/// A loose-object header that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    #[error("object header has no NUL terminator within {0} bytes")]
    Unterminated(usize),
    #[error("unknown object type {0:?}")]
    UnknownType(String),
    #[error("bad object length {0:?}")]
    BadLength(String),
}

/// Parses `"<type> <len>\0"` at the start of `data`; returns the kind, the
/// declared body length and the header length (including the NUL).
pub fn parse_object_header(data: &[u8]) -> Result<(ObjectKind, u64, usize), HeaderError> {
    // git limits the header to 32 bytes for loose objects ("hdr[MAX_HEADER_LEN]").
    const MAX: usize = 64;
    let window = &data[..data.len().min(MAX)];
    let nul = window
        .iter()
        .position(|&b| b == 0)
        .ok_or(HeaderError::Unterminated(window.len()))?;
    let head = &data[..nul];
    let sp = head
        .iter()
        .position(|&b| b == b' ')
        .ok_or_else(|| HeaderError::UnknownType(String::from_utf8_lossy(head).into_owned()))?;
    let kind = ObjectKind::from_name(&head[..sp]).ok_or_else(|| {
        HeaderError::UnknownType(String::from_utf8_lossy(&head[..sp]).into_owned())
    })?;
    let digits = &head[sp + 1..];
    let bad = || HeaderError::BadLength(String::from_utf8_lossy(digits).into_owned());
    if digits.is_empty()
        || (digits.len() > 1 && digits[0] == b'0')
        || !digits.iter().all(u8::is_ascii_digit)
    {
        return Err(bad());
    }
    let len = std::str::from_utf8(digits)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or_else(bad)?;
    Ok((kind, len, nul + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip() {
        let h = object_header(ObjectKind::Blob, 12);
        assert_eq!(h, b"blob 12\0");
        assert_eq!(parse_object_header(&h).unwrap(), (ObjectKind::Blob, 12, 8));
    }

    #[test]
    fn header_rejects_junk() {
        assert!(parse_object_header(b"blob 012\0").is_err());
        assert!(parse_object_header(b"blub 1\0").is_err());
        assert!(parse_object_header(b"blob 1").is_err());
    }
}
