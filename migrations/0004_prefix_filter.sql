-- Prefix filters: for each side (1 = SHA-1 names, 2 = SHA-256 names), a
-- bitmap with bit k set when some name's first `bits` bits equal k. A clear
-- bit proves that no name on that side starts with a given prefix, so
-- `git-rehash map` can skip that side's B-tree descent for most ids (see
-- src/idmap/lookup_aids.rs). Filled by the program after a load
-- (IdMap::finish_load), together with triggers that empty this table when
-- `objects` changes: a row here is therefore never older than the rows it
-- describes, and a missing row only means "no filter, probe the B-tree".
CREATE TABLE prefix_filter (
    side INTEGER PRIMARY KEY CHECK (side IN (1, 2)),
    bits INTEGER NOT NULL CHECK (bits BETWEEN 8 AND 32),
    map  BLOB    NOT NULL
);
