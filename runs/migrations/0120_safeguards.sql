-- The safeguard lab (issue 17): each policy applied to every memory version of a chain, the
-- executor re-run behind the gated memory, stored so the TUI reads it without recomputing.
--
-- A lab batch evaluates one chain under some policies with one executor and seed. Its arms
-- are replays. policy_id NULL: not the lab's. policy_id '': the lab's un-gated arm of a
-- (block, probe), memory_variant 'written', shared by every policy of the batch and part of
-- attribution like any written re-run; it is deleted (with its attribution rows) once no
-- safeguard pair refers to it. Otherwise: a gated arm, memory_variant 'gated', with its
-- policy's id and version.
-- Re-running a policy on a chain replaces that policy's gated replays and rows below, in one
-- transaction per batch.

ALTER TABLE replays ADD COLUMN policy_id TEXT;
ALTER TABLE replays ADD COLUMN policy_version TEXT;
CREATE INDEX replays_policy ON replays (chain_pk, policy_id) WHERE policy_id IS NOT NULL;

-- One policy on one chain: the chain-level verdicts and the run table's input (outcome_json,
-- engine.SafeguardOutcome at the final block).
CREATE TABLE safeguard_evaluations (
  chain_pk                     INTEGER NOT NULL REFERENCES chains (chain_pk) ON DELETE CASCADE,
  policy_id                    TEXT NOT NULL,
  policy_version               TEXT NOT NULL,
  description                  TEXT NOT NULL,
  batch_id                     TEXT NOT NULL,
  executor_target              TEXT NOT NULL,
  executor_json                TEXT NOT NULL,
  seed                         INTEGER NOT NULL,
  -- final | every: the blocks whose probes were re-run
  trial_blocks                 TEXT NOT NULL,
  -- the policy's reason when it applies to no memory version of the chain
  not_applicable               TEXT,
  first_false_authority_before INTEGER,
  first_false_authority_after  INTEGER,
  formation_removed            INTEGER NOT NULL,
  counts_json                  TEXT NOT NULL,
  final_counts_json            TEXT NOT NULL,
  final_written_json           TEXT NOT NULL,
  final_gated_json             TEXT NOT NULL,
  removed_json                 TEXT NOT NULL,
  outcome_json                 TEXT NOT NULL,
  created_at                   TEXT NOT NULL,
  PRIMARY KEY (chain_pk, policy_id)
) WITHOUT ROWID;

-- The gated memory of each memory version and the policy's decision on every record.
CREATE TABLE safeguard_blocks (
  chain_pk               INTEGER NOT NULL REFERENCES chains (chain_pk) ON DELETE CASCADE,
  policy_id              TEXT NOT NULL,
  block_index            INTEGER NOT NULL,
  memory_id              TEXT NOT NULL,
  written_content_hash   TEXT NOT NULL,
  written_formation_json TEXT NOT NULL,
  not_applicable         TEXT,
  -- NULL when not applicable; the written payload for a policy with only an action gate
  gated_payload_json     TEXT,
  gated_payload_text     TEXT,
  gated_content_hash     TEXT,
  gated_formation_json   TEXT NOT NULL,
  records_json           TEXT NOT NULL,
  PRIMARY KEY (chain_pk, policy_id, block_index)
) WITHOUT ROWID;

-- The two arms of each (block, probe) under a policy and what the policy did to the request.
CREATE TABLE safeguard_pairs (
  chain_pk           INTEGER NOT NULL REFERENCES chains (chain_pk) ON DELETE CASCADE,
  policy_id          TEXT NOT NULL,
  block_index        INTEGER NOT NULL,
  probe_id           TEXT NOT NULL,
  request_authorized INTEGER NOT NULL,
  effect             TEXT NOT NULL,
  written_replay_id  TEXT NOT NULL,
  gated_replay_id    TEXT,
  -- the policy's action-gate verdict on the gated arm (NULL: no gate, or nothing to gate)
  gate_json          TEXT,
  PRIMARY KEY (chain_pk, policy_id, block_index, probe_id)
) WITHOUT ROWID;

-- The latest lab batch's un-gated view of a chain: its final-block formation and the
-- un-gated outcome per probe there (the event-sourcing row pairs chains by them).
CREATE TABLE safeguard_chains (
  chain_pk             INTEGER PRIMARY KEY REFERENCES chains (chain_pk) ON DELETE CASCADE,
  batch_id             TEXT NOT NULL,
  executor_target      TEXT NOT NULL,
  seed                 INTEGER NOT NULL,
  final_formation_json TEXT NOT NULL,
  final_arms_json      TEXT NOT NULL,
  created_at           TEXT NOT NULL
);
