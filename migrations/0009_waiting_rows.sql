-- Map rows of a segment whose objects name objects that have no row yet.
--
-- A conversion writes two sequences of segments side by side (0002): the
-- blobs, and the trees, commits and tags, which name blobs of any blob
-- segment, earlier or later. The map must stay closed under references: a
-- row exists only once everything its object names has one. So a segment
-- of trees, commits and tags that is finished before the last blob segment
-- commits its `segments` row with its objects' rows kept here instead of
-- in `staged_rows` (0005): journaled and durable, but not part of the map.
-- When the last blob segment has committed, one transaction moves every
-- waiting segment's rows to `staged_rows`. A run interrupted before that
-- leaves them here; the next run adopts them (their objects are written
-- already and are not written again) and moves them once its own blobs
-- are all committed.
--
-- `rows` has the layout of `staged_rows.rows`: the segment's objects in
-- ascending SHA-1 order, 53 bytes each (SHA-1, SHA-256, pack type code).
CREATE TABLE waiting_rows (
    pack TEXT NOT NULL PRIMARY KEY REFERENCES segments (pack),
    rows BLOB NOT NULL CHECK (length(rows) % 53 = 0)
);
