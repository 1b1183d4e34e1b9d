-- One pack at the end: the finish step of a run copies the segments it
-- and any interrupted run before it wrote (0002) into one pack, then
-- deletes them. Their `segments` rows stay, with the pack that now holds
-- their objects, so the staged rows (0005) keep their keys and the
-- journal still says which run wrote what.
--
-- The pack's row and every `folded_into` are set in one transaction, only
-- after the pack, its .rev and its .idx are renamed into place and fsynced.
-- A segment whose `folded_into` is set is a leftover the next run deletes,
-- like a pack no row names.
ALTER TABLE segments ADD COLUMN folded_into TEXT;

CREATE TABLE packs (
    -- The pack's file name stem, `pack-<hex of its SHA-256 trailer>`.
    pack    TEXT    NOT NULL PRIMARY KEY,
    run     INTEGER NOT NULL REFERENCES runs (id),
    objects INTEGER NOT NULL,
    bytes   INTEGER NOT NULL
) WITHOUT ROWID;
