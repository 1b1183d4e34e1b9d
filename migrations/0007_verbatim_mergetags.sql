-- Commits translated with a mergetag kept verbatim
-- (`--unmapped-mergetags=verbatim`): the tag such a field embeds names an
-- object SOURCE does not have, so no SHA-256 translation of it exists, and
-- the field was copied as it is (its SHA-1 object line, its signature over
-- its original bytes). The commit's `objects` row still pairs its names;
-- this row says how they are related: translating the SHA-256 commit back
-- copies such a field back as it is (`git-rehash verify`), which gives the
-- SHA-1 commit exactly. Any other commit with such a field is refused.
--
-- A row is inserted in the transaction that commits its commit's map row
-- with the segment storing it (0002), and names the commit by SHA-1.
CREATE TABLE verbatim_mergetags (
    sha1 BLOB NOT NULL PRIMARY KEY CHECK (length(sha1) = 20)
) WITHOUT ROWID;
