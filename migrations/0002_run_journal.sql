-- The run journal: what makes a conversion resumable and incremental.
--
-- A conversion writes its output as a sequence of packs ("segments"). Each
-- segment's `segments` row is inserted in the same transaction as the
-- `objects` rows of every object stored in that pack, and only after the
-- pack, its .rev and its .idx have been renamed into place and fsynced. So
-- a committed `objects` row always means "named and durably written", and
-- an object without a row is converted again by the next run. Packs in
-- DEST that no row names are leftovers of an interrupted run and are
-- deleted when the next run starts.
CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    -- Unix seconds.
    started     INTEGER NOT NULL,
    finished    INTEGER,
    -- Objects SOURCE listed, and how many of them had no row yet.
    listed      INTEGER NOT NULL,
    new_objects INTEGER NOT NULL
);

CREATE TABLE segments (
    -- The pack's file name stem, `pack-<hex of its SHA-256 trailer>`.
    pack    TEXT    NOT NULL PRIMARY KEY,
    run     INTEGER NOT NULL REFERENCES runs (id),
    -- Order of commitment within the database.
    seq     INTEGER NOT NULL UNIQUE,
    objects INTEGER NOT NULL,
    bytes   INTEGER NOT NULL
) WITHOUT ROWID;
