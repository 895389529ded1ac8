-- Live re-runs (issue 6): every executor call made on a chain's case with a chosen memory
-- variant, kept as it finished, and the end-to-end attribution rows computed from them.
--
-- A replay belongs to a chain (run x case x condition x writer run) and a block; the executor
-- is provenance only (executor_json), never part of the key. Rows are written one per
-- transaction as calls finish, so a cancelled re-run keeps what completed.

CREATE TABLE replays (
  replay_pk                 INTEGER PRIMARY KEY,
  replay_id                 TEXT NOT NULL UNIQUE,
  batch_id                  TEXT NOT NULL,
  chain_pk                  INTEGER NOT NULL REFERENCES chains (chain_pk) ON DELETE CASCADE,
  run_pk                    INTEGER NOT NULL REFERENCES runs (run_pk) ON DELETE CASCADE,
  case_id                   TEXT NOT NULL,
  condition_id              TEXT NOT NULL,
  writer_target             TEXT NOT NULL,
  writer_run_id             INTEGER NOT NULL,
  block_index               INTEGER NOT NULL,
  probe_id                  TEXT NOT NULL,
  -- written | exact | edited | file
  memory_variant            TEXT NOT NULL,
  memory_architecture       TEXT NOT NULL,
  memory_source             TEXT NOT NULL,
  -- The chain's written memory at the block: the (memory, probe) this arm answers for.
  written_memory_id         TEXT,
  memory_payload_json       TEXT NOT NULL,
  memory_payload_text       TEXT NOT NULL,
  memory_content_hash       TEXT NOT NULL,
  memory_formed             INTEGER NOT NULL,
  formation_estimable       INTEGER NOT NULL,
  executor_target           TEXT NOT NULL,
  executor_json             TEXT NOT NULL,
  repetition                INTEGER NOT NULL,
  seed                      INTEGER NOT NULL,
  messages_json             TEXT NOT NULL,
  tools_json                TEXT NOT NULL,
  request_hash              TEXT NOT NULL,
  -- The raw reply (engine.Response: text, tool calls with raw arguments, finish reason,
  -- model, provider error) and the provider's usage object.
  response_json             TEXT NOT NULL,
  usage_json                TEXT NOT NULL,
  attempts                  INTEGER NOT NULL,
  latency_ms                INTEGER NOT NULL,
  decision                  TEXT NOT NULL,
  request_authorized        INTEGER NOT NULL,
  requested_action_taken    INTEGER NOT NULL,
  unauthorized_action_taken INTEGER NOT NULL,
  action_mismatch           INTEGER NOT NULL,
  compliant                 INTEGER NOT NULL,
  parseable                 INTEGER NOT NULL,
  provider_error            TEXT,
  finish_reason             TEXT,
  response_text             TEXT NOT NULL,
  tool_call_count           INTEGER NOT NULL,
  terminal_call_count       INTEGER NOT NULL,
  raw_tool_name             TEXT,
  raw_tool_arguments_json   TEXT NOT NULL,
  oracle_reason             TEXT NOT NULL,
  detail                    TEXT NOT NULL,
  mirrored_trial_id         TEXT,
  mirrored_context_hash     TEXT,
  created_at                TEXT NOT NULL
);
-- replays_arms serves a chain's replays and, as a covering index, the attribution of a
-- (chain, block, probe, executor) group: recomputing it after each new arm then reads index
-- pages only, never the wide rows (messages, tools, reply) and their overflow pages.
CREATE INDEX replays_arms ON replays (chain_pk, block_index, probe_id, executor_target, memory_variant, repetition, replay_pk,
  replay_id, memory_content_hash, memory_formed, formation_estimable, request_authorized, requested_action_taken, provider_error);

-- End-to-end attribution of re-run arms: one row per non-exact arm (a written, edited or file
-- replay, or else the imported trial on the same memory) of a (chain, block, probe, executor)
-- that has an exact arm; seq is the written arm's replay_pk (or trial_pk). The rows a new
-- replay changes are updated in that replay's transaction.
CREATE TABLE replay_attribution (
  chain_pk                      INTEGER NOT NULL REFERENCES chains (chain_pk) ON DELETE CASCADE,
  block_index                   INTEGER NOT NULL,
  probe_id                      TEXT NOT NULL,
  executor_target               TEXT NOT NULL,
  seq                           INTEGER NOT NULL,
  written_replay_id             TEXT,
  written_trial_id              TEXT,
  exact_replay_id               TEXT,
  memory_variant                TEXT NOT NULL,
  memory_content_hash           TEXT NOT NULL,
  repetition                    INTEGER NOT NULL,
  evidence_id                   TEXT NOT NULL,
  case_id                       TEXT NOT NULL,
  condition_id                  TEXT NOT NULL,
  writer_target                 TEXT,
  request_authorized            INTEGER NOT NULL,
  memory_formed                 INTEGER NOT NULL,
  formation_estimable           INTEGER NOT NULL,
  estimable                     INTEGER NOT NULL,
  authorized_use                INTEGER NOT NULL,
  exact_authorized_use          INTEGER NOT NULL,
  unauthorized_submission       INTEGER NOT NULL,
  exact_unauthorized_submission INTEGER NOT NULL,
  attributed                    INTEGER NOT NULL,
  reasons_json                  TEXT NOT NULL,
  PRIMARY KEY (chain_pk, block_index, probe_id, executor_target, seq)
) WITHOUT ROWID;
