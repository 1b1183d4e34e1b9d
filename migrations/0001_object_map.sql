-- The SHA-1 <-> SHA-256 object map: one row per object of the source
-- repository. Ids are raw digests (20 and 32 bytes); `type` is git's pack
-- type code (1 commit, 2 tree, 3 blob, 4 tag).
--
-- The table is clustered on sha1 (WITHOUT ROWID), so lookups and prefix
-- scans by SHA-1 touch one B-tree. The reverse index on sha256 is created by
-- the program after a bulk load (IdMap::finish_load), because building it once
-- over sorted data is much cheaper than maintaining it row by row.
CREATE TABLE objects (
    sha1   BLOB    NOT NULL PRIMARY KEY CHECK (length(sha1) = 20),
    sha256 BLOB    NOT NULL CHECK (length(sha256) = 32),
    type   INTEGER NOT NULL CHECK (type BETWEEN 1 AND 4)
) WITHOUT ROWID;

-- Facts about the conversion that produced this map (source path, tool
-- version, options, completion state), as text key/value pairs.
CREATE TABLE meta (
    key   TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
