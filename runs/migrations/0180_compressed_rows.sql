-- Compressed rows: a run's large rows (model calls, model contexts, executor plans, memories,
-- trials, ...) are stored as zstd chunks of consecutive rows of one artifact (row_chunks), and
-- each such row keeps its chunk, offset, length and sha256 instead of its bytes in row_json
-- (left ''). Every read decompresses the chunk and checks the hash (runs/rawrows.go). Rows
-- imported before keep their row_json and chunk_pk NULL: nothing is rewritten, nothing lost.
-- chunk_pk is not declared a foreign key: an import inserts a row before its chunk (the chunk
-- is compressed meanwhile), and with a deferred key SQLite scans every row table, which has
-- no index on chunk_pk, at each chunk's insert. A missing chunk is reported by the reader.
CREATE TABLE row_chunks (
  chunk_pk  INTEGER PRIMARY KEY,
  run_pk    INTEGER NOT NULL REFERENCES runs (run_pk),
  artifact  TEXT NOT NULL,
  codec     TEXT NOT NULL,
  row_count INTEGER NOT NULL,
  raw_bytes INTEGER NOT NULL,
  data      BLOB NOT NULL
);

ALTER TABLE memories ADD COLUMN chunk_pk INTEGER;
ALTER TABLE memories ADD COLUMN chunk_offset INTEGER;
ALTER TABLE memories ADD COLUMN chunk_length INTEGER;
ALTER TABLE memories ADD COLUMN row_sha256 BLOB;
ALTER TABLE attempts ADD COLUMN chunk_pk INTEGER;
ALTER TABLE attempts ADD COLUMN chunk_offset INTEGER;
ALTER TABLE attempts ADD COLUMN chunk_length INTEGER;
ALTER TABLE attempts ADD COLUMN row_sha256 BLOB;
ALTER TABLE states ADD COLUMN chunk_pk INTEGER;
ALTER TABLE states ADD COLUMN chunk_offset INTEGER;
ALTER TABLE states ADD COLUMN chunk_length INTEGER;
ALTER TABLE states ADD COLUMN row_sha256 BLOB;
ALTER TABLE evidence ADD COLUMN chunk_pk INTEGER;
ALTER TABLE evidence ADD COLUMN chunk_offset INTEGER;
ALTER TABLE evidence ADD COLUMN chunk_length INTEGER;
ALTER TABLE evidence ADD COLUMN row_sha256 BLOB;
ALTER TABLE trials ADD COLUMN chunk_pk INTEGER;
ALTER TABLE trials ADD COLUMN chunk_offset INTEGER;
ALTER TABLE trials ADD COLUMN chunk_length INTEGER;
ALTER TABLE trials ADD COLUMN row_sha256 BLOB;
ALTER TABLE model_contexts ADD COLUMN chunk_pk INTEGER;
ALTER TABLE model_contexts ADD COLUMN chunk_offset INTEGER;
ALTER TABLE model_contexts ADD COLUMN chunk_length INTEGER;
ALTER TABLE model_contexts ADD COLUMN row_sha256 BLOB;
ALTER TABLE calls ADD COLUMN chunk_pk INTEGER;
ALTER TABLE calls ADD COLUMN chunk_offset INTEGER;
ALTER TABLE calls ADD COLUMN chunk_length INTEGER;
ALTER TABLE calls ADD COLUMN row_sha256 BLOB;
ALTER TABLE executor_plan ADD COLUMN chunk_pk INTEGER;
ALTER TABLE executor_plan ADD COLUMN chunk_offset INTEGER;
ALTER TABLE executor_plan ADD COLUMN chunk_length INTEGER;
ALTER TABLE executor_plan ADD COLUMN row_sha256 BLOB;
ALTER TABLE faults ADD COLUMN chunk_pk INTEGER;
ALTER TABLE faults ADD COLUMN chunk_offset INTEGER;
ALTER TABLE faults ADD COLUMN chunk_length INTEGER;
ALTER TABLE faults ADD COLUMN row_sha256 BLOB;
ALTER TABLE extra_rows ADD COLUMN chunk_pk INTEGER;
ALTER TABLE extra_rows ADD COLUMN chunk_offset INTEGER;
ALTER TABLE extra_rows ADD COLUMN chunk_length INTEGER;
ALTER TABLE extra_rows ADD COLUMN row_sha256 BLOB;

-- Search indexes without a second copy of the text: the FTS tables read turns' and memories'
-- own columns (external content), instead of keeping their own copy of every turn and every
-- free-text memory. Free-text memories are the only ones indexed, as before.
DROP TABLE turns_fts;
CREATE VIRTUAL TABLE turns_fts USING fts5 (content, speaker, content = 'turns', content_rowid = 'turn_pk', tokenize = 'unicode61');
INSERT INTO turns_fts (turns_fts) VALUES ('rebuild');
DROP TABLE memories_fts;
CREATE VIRTUAL TABLE memories_fts USING fts5 (payload_text, content = 'memories', content_rowid = 'mem_pk', tokenize = 'unicode61');
INSERT INTO memories_fts (rowid, payload_text) SELECT mem_pk, payload_text FROM memories WHERE architecture = 'free_text';
