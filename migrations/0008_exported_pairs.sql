-- Pairs `git-rehash export-sha1` worked out: objects made in the SHA-256
-- repository after its conversion (by git, in DEST), whose SHA-1 names the
-- export found by translating them back (docs/interop.md). Their rows are
-- in `objects` like every other pair, so `map`, `translate-text` and later
-- runs see one map; this table says which rows came from DEST's own
-- history rather than from SOURCE, so that a later `convert` can refuse to
-- move DEST's refs back to SOURCE's.
CREATE TABLE exported (
    sha256   BLOB    NOT NULL PRIMARY KEY CHECK (length(sha256) = 32),
    -- Unix seconds of the transaction that recorded it.
    recorded INTEGER NOT NULL
) WITHOUT ROWID;
