-- Map rows committed with their segment but not yet merged into `objects`.
--
-- A conversion journals each finished segment (0002) in one transaction
-- with its objects' rows. Inserted into `objects` one by one, those rows
-- land all over a table clustered on SHA-1, so every segment rewrote most
-- of its leaf pages: on 2 million objects, more work than the rest of the
-- journal. Instead a segment's rows are kept here as one blob, and the run
-- merges them all into `objects` once, in SHA-1 order, when it ends (or
-- the next run does, when it was interrupted). Readers of a map that still
-- has staged rows see them too (src/idmap/staged.rs).
--
-- `rows` is the segment's objects in ascending SHA-1 order, 53 bytes each:
-- the SHA-1 (20 bytes), the SHA-256 (32) and git's pack type code (1).
CREATE TABLE staged_rows (
    pack TEXT NOT NULL PRIMARY KEY REFERENCES segments (pack),
    rows BLOB NOT NULL CHECK (length(rows) % 53 = 0)
);
