-- Objects a conversion wrote into DEST that are not the translation of any
-- object of SOURCE, so they have no SHA-1 name and no `objects` row: today
-- the commits and trees `--rekey-notes` puts on top of each notes ref.
-- `git-rehash verify` checks them by name and type instead of translating
-- them back (docs/interop.md).
CREATE TABLE created (
    sha256 BLOB    NOT NULL PRIMARY KEY CHECK (length(sha256) = 32),
    -- git's pack type code, as in `objects`.
    type   INTEGER NOT NULL CHECK (type BETWEEN 1 AND 4),
    -- Why it exists: 'rekey-notes'.
    reason TEXT    NOT NULL,
    -- For a commit a ref points to instead of the translation of SOURCE's
    -- value: that ref, and the translated object it stands on (its parent).
    ref    TEXT,
    base   BLOB    CHECK (base IS NULL OR length(base) = 32)
) WITHOUT ROWID;
