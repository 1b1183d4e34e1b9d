//! The kinds of stop every library error answers with (convert's,
//! export's, verify's, attest's and those of the layers below them), so
//! the CLI gives one exit status per kind whichever command ran.

/// What kind of stop an error is: the CLI's exit status follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// SOURCE cannot be converted as it is; the message says what to do.
    Refused,
    /// SOURCE holds something git would not accept.
    Corrupt,
    /// DEST holds a conversion that needs a decision first: commits of its
    /// own, damage, or files this version cannot resume.
    DestState,
    /// The command names what it cannot use: a SOURCE that does not exist
    /// or is not a SHA-1 repository, a DEST that is not this conversion's
    /// or cannot be created, options that do not go together.
    Usage,
    /// I/O, the disk, the map database, a lock another run holds: the run
    /// may succeed when retried.
    Failed,
    /// Ctrl-C or SIGTERM: a re-run resumes.
    Interrupted,
}
