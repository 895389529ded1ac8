-- The audience lab's results (docs/SAFEGUARDS.md "Audience-bound admission"): one evaluation
-- per run, with every assembled context, so the TUI and `ealscope safeguards --policy
-- audience_bound` read it back without recomputing. Recomputing replaces a run's evaluation
-- whole, in one transaction.
CREATE TABLE audience_labs (
  run_pk          INTEGER PRIMARY KEY REFERENCES runs (run_pk) ON DELETE CASCADE,
  policy_version  TEXT NOT NULL,
  sidecar_source  TEXT NOT NULL,
  sidecar_sha256  TEXT NOT NULL,
  -- the executor as asked (builtin or a model entry's name) and the target it resolved to
  executor_name   TEXT NOT NULL,
  executor_target TEXT NOT NULL,
  seed            INTEGER NOT NULL,
  chains          INTEGER NOT NULL,
  -- the table rows per arm and writer condition (replay.AudienceRow)
  rows_json       TEXT NOT NULL,
  created_at      TEXT NOT NULL
);

-- One assembled context: an arm's admission for one request of one probe on one chain's final
-- memory (detail_json: the viewers, each record's decision and truth, the executor's outcome).
CREATE TABLE audience_lab_contexts (
  run_pk       INTEGER NOT NULL REFERENCES audience_labs (run_pk) ON DELETE CASCADE,
  seq          INTEGER NOT NULL,
  chain_pk     INTEGER NOT NULL REFERENCES chains (chain_pk) ON DELETE CASCADE,
  arm          TEXT NOT NULL,
  condition_id TEXT NOT NULL,
  case_id      TEXT NOT NULL,
  probe_id     TEXT NOT NULL,
  request_id   TEXT NOT NULL,
  detail_json  TEXT NOT NULL,
  PRIMARY KEY (run_pk, seq)
) WITHOUT ROWID;
CREATE INDEX audience_lab_contexts_chain ON audience_lab_contexts (chain_pk, seq);
