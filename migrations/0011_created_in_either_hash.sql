-- Objects a conversion created in DEST (0003) are named in DEST's hash,
-- which is SHA-1 for a conversion from SHA-256 to SHA-1: the table is
-- rebuilt with a name (and a base) of either length, its rows kept.
CREATE TABLE created_in_dest (
    -- The object's name in DEST's hash (20 or 32 bytes).
    name   BLOB    NOT NULL PRIMARY KEY CHECK (length(name) IN (20, 32)),
    -- git's pack type code, as in `objects`.
    type   INTEGER NOT NULL CHECK (type BETWEEN 1 AND 4),
    -- Why it exists: 'rekey-notes'.
    reason TEXT    NOT NULL,
    -- For a commit a ref points to instead of the translation of SOURCE's
    -- value: that ref, and the translated object it stands on (its parent).
    ref    TEXT,
    base   BLOB    CHECK (base IS NULL OR length(base) IN (20, 32))
) WITHOUT ROWID;
INSERT INTO created_in_dest (name, type, reason, ref, base)
    SELECT sha256, type, reason, ref, base FROM created;
DROP TABLE created;
ALTER TABLE created_in_dest RENAME TO created;
