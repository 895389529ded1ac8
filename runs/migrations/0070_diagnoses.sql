-- EAL-Bench's judge diagnoses (docs/FORMATS.md, results/diagnosis/v2/*/*.jsonl): one row per
-- (writer memory error x request) with each judge's verdict on where the error entered.
-- A file is imported whole in one transaction and recognised again by its sha256.

CREATE TABLE diagnosis_files (
  file_pk     INTEGER PRIMARY KEY,
  path        TEXT NOT NULL,
  sha256      TEXT NOT NULL UNIQUE,
  rows        INTEGER NOT NULL,
  imported_at TEXT NOT NULL
);

CREATE TABLE diagnoses (
  diagnosis_pk          INTEGER PRIMARY KEY,
  file_pk               INTEGER NOT NULL REFERENCES diagnosis_files (file_pk),
  line                  INTEGER NOT NULL,
  run_id                TEXT NOT NULL,
  domain                TEXT NOT NULL,
  case_id               TEXT NOT NULL,
  condition_id          TEXT NOT NULL,
  writer                TEXT NOT NULL,
  writer_run_id         INTEGER NOT NULL,
  chain_id              TEXT NOT NULL,
  arm                   TEXT,
  probe_id              TEXT NOT NULL,
  request_kind          TEXT NOT NULL,
  request_json          TEXT NOT NULL,
  error_block           INTEGER NOT NULL,
  failure               TEXT NOT NULL,
  loop_block            INTEGER NOT NULL,
  attempt_statuses_json TEXT NOT NULL,
  -- {judge: {cause, misleading_message_ids, ignored_message_ids, error_entered_here, explanation}}
  judges_json           TEXT NOT NULL,
  consensus_cause       TEXT,
  agreement             INTEGER,
  UNIQUE (file_pk, line)
);

CREATE INDEX diagnoses_by_chain ON diagnoses (case_id, condition_id, writer_run_id, error_block);
