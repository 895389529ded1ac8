-- Free-text memory annotations (issue 7): a person's (or an extractor's) reading of a
-- free-text memory as a typed authorization state, bound to the content hash of the exact
-- text that was read.
--
-- Labels are keyed by memory_id, as EAL-Bench's memory_annotations.jsonl rows are, not by
-- run: the same memory imported twice is one memory to annotate. Each annotator holds at most
-- one label per memory; saving again replaces it. Every save is its own transaction, so a
-- killed session keeps everything saved before it.

CREATE TABLE annotators (
  name       TEXT PRIMARY KEY,
  -- human | extractor (an LLM extractor imported from an EAL-Bench child run)
  kind       TEXT NOT NULL,
  created_at TEXT NOT NULL,
  -- the extractor object of an imported run ({} for people)
  detail_json TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE annotations (
  annotation_pk       INTEGER PRIMARY KEY,
  -- EAL-Bench's recipe: "annotation_" + sha256(extractor_version \x1f memory_id \x1f annotator)[:24]
  annotation_id       TEXT NOT NULL UNIQUE,
  memory_id           TEXT NOT NULL,
  annotator           TEXT NOT NULL REFERENCES annotators (name),
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL,
  -- the typed state's schema_version ("3" for procurement)
  schema_version      TEXT NOT NULL,
  source_content_hash TEXT NOT NULL,
  -- draft | submitted | accepted (people); accepted | invalid_response | provider_error
  -- (imported extractor rows keep theirs)
  status              TEXT NOT NULL,
  detail              TEXT NOT NULL,
  -- the typed state as canonical JSON; NULL when an extractor produced none
  state_json          TEXT,
  -- tui | cli | adjudication | import
  origin              TEXT NOT NULL,
  -- the memory_annotations.jsonl row an import read, verbatim ('' otherwise)
  source_row_json     TEXT NOT NULL,
  UNIQUE (memory_id, annotator)
);
CREATE INDEX annotations_by_status ON annotations (status, memory_id);
CREATE INDEX annotations_by_annotator ON annotations (annotator, memory_id);

-- Free-text memories are looked up by id across runs when a label changes.
CREATE INDEX memories_by_id ON memories (memory_id);
