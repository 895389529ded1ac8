-- ealscope workspace schema, version 1.
--
-- Corpora and cases are shared by every run that uses them; a run's rows reference its cases by
-- (domain_id, case_id) through chains.case_pk, which is NULL when the corpus was missing at import
-- (runs.missing_corpora_json then says which). Derived facts (ledger snapshots, scores, chains,
-- attribution) are computed at import so the TUI only reads.

CREATE TABLE corpora (
  corpus_pk      INTEGER PRIMARY KEY,
  domain_id      TEXT NOT NULL,
  corpus_version TEXT NOT NULL,
  source         TEXT NOT NULL,
  sha256         TEXT NOT NULL,
  case_count     INTEGER NOT NULL,
  imported_at    TEXT NOT NULL,
  UNIQUE (domain_id, corpus_version, sha256)
);

CREATE TABLE cases (
  case_pk        INTEGER PRIMARY KEY,
  corpus_pk      INTEGER NOT NULL REFERENCES corpora (corpus_pk),
  domain_id      TEXT NOT NULL,
  corpus_version TEXT NOT NULL,
  case_id        TEXT NOT NULL,
  line           INTEGER NOT NULL,
  content_hash   TEXT NOT NULL,
  case_json      TEXT NOT NULL,
  policy         TEXT NOT NULL,
  lifecycle      TEXT NOT NULL,
  block_count    INTEGER NOT NULL,
  probe_count    INTEGER NOT NULL,
  UNIQUE (domain_id, corpus_version, case_id)
);

CREATE TABLE blocks (
  case_pk     INTEGER NOT NULL REFERENCES cases (case_pk),
  block_index INTEGER NOT NULL,
  block_id    TEXT NOT NULL,
  title       TEXT NOT NULL,
  ended_at    TEXT NOT NULL,
  turn_count  INTEGER NOT NULL,
  PRIMARY KEY (case_pk, block_index)
) WITHOUT ROWID;

CREATE TABLE turns (
  turn_pk         INTEGER PRIMARY KEY,
  case_pk         INTEGER NOT NULL REFERENCES cases (case_pk),
  block_index     INTEGER NOT NULL,
  seq             INTEGER NOT NULL,
  turn_id         TEXT NOT NULL,
  actor_id        TEXT NOT NULL,
  speaker         TEXT NOT NULL,
  content         TEXT NOT NULL,
  occurred_at     TEXT NOT NULL,
  cited_by_ledger INTEGER NOT NULL,
  UNIQUE (case_pk, turn_id)
);
CREATE INDEX turns_by_block ON turns (case_pk, block_index, seq);

CREATE TABLE ledger_events (
  case_pk              INTEGER NOT NULL REFERENCES cases (case_pk),
  seq                  INTEGER NOT NULL,
  event_id             TEXT NOT NULL,
  event_type           TEXT NOT NULL,
  block_index          INTEGER NOT NULL,
  issuer               TEXT NOT NULL,
  effective_at         TEXT NOT NULL,
  authorization_id     TEXT NOT NULL,
  new_authorization_id TEXT NOT NULL,
  source_turn_ids_json TEXT NOT NULL,
  detail_json          TEXT NOT NULL,
  PRIMARY KEY (case_pk, seq)
) WITHOUT ROWID;
CREATE INDEX ledger_events_by_block ON ledger_events (case_pk, block_index);

-- The ledger state (typed payload of the replayed records) of every case at every block.
CREATE TABLE ledger_snapshots (
  case_pk      INTEGER NOT NULL REFERENCES cases (case_pk),
  block_index  INTEGER NOT NULL,
  state_json   TEXT NOT NULL,
  record_count INTEGER NOT NULL,
  active_count INTEGER NOT NULL,
  PRIMARY KEY (case_pk, block_index)
) WITHOUT ROWID;

CREATE TABLE probes (
  case_pk       INTEGER NOT NULL REFERENCES cases (case_pk),
  probe_id      TEXT NOT NULL,
  seq           INTEGER NOT NULL,
  pair_id       TEXT NOT NULL,
  dimension     TEXT NOT NULL,
  request_scope TEXT NOT NULL,
  request_json  TEXT NOT NULL,
  PRIMARY KEY (case_pk, probe_id)
) WITHOUT ROWID;

-- The oracle's verdict on every probe at every block.
CREATE TABLE probe_verdicts (
  case_pk     INTEGER NOT NULL REFERENCES cases (case_pk),
  block_index INTEGER NOT NULL,
  probe_id    TEXT NOT NULL,
  authorized  INTEGER NOT NULL,
  reason      TEXT NOT NULL,
  PRIMARY KEY (case_pk, block_index, probe_id)
) WITHOUT ROWID;

CREATE TABLE runs (
  run_pk                INTEGER PRIMARY KEY,
  run_id                TEXT NOT NULL UNIQUE,
  manifest_sha256       TEXT NOT NULL UNIQUE,
  kind                  TEXT NOT NULL,
  manifest_json         TEXT NOT NULL,
  status                TEXT NOT NULL,
  verification          TEXT NOT NULL,
  incomplete            INTEGER NOT NULL,
  imported_from         TEXT NOT NULL,
  imported_at           TEXT NOT NULL,
  domain_id             TEXT NOT NULL,
  study                 TEXT NOT NULL,
  corpus_version        TEXT NOT NULL,
  started_at            TEXT NOT NULL,
  counts_json           TEXT NOT NULL,
  unknown_files_json    TEXT NOT NULL,
  missing_corpora_json  TEXT NOT NULL,
  rescore_disagreements INTEGER NOT NULL
);

-- One row per run x case x condition x writer target x writer run.
CREATE TABLE chains (
  chain_pk                    INTEGER PRIMARY KEY,
  run_pk                      INTEGER NOT NULL REFERENCES runs (run_pk),
  case_id                     TEXT NOT NULL,
  case_pk                     INTEGER REFERENCES cases (case_pk),
  condition_id                TEXT NOT NULL,
  writer_target               TEXT NOT NULL,
  writer_run_id               INTEGER NOT NULL,
  architecture                TEXT NOT NULL,
  eal_chain_ids_json          TEXT NOT NULL,
  memory_count                INTEGER NOT NULL,
  final_memory_id             TEXT NOT NULL,
  first_false_authority_block INTEGER,
  ffa_cited_turns_json        TEXT NOT NULL,
  formed_final                INTEGER,
  unauthorized_actions        INTEGER NOT NULL,
  attributed_memory_induced   INTEGER NOT NULL,
  needs_annotation            INTEGER NOT NULL,
  trial_count                 INTEGER NOT NULL,
  unscored_reason             TEXT NOT NULL,
  UNIQUE (run_pk, case_id, condition_id, writer_target, writer_run_id)
);
CREATE INDEX chains_by_ffa ON chains (run_pk, first_false_authority_block);
CREATE INDEX chains_by_unauthorized ON chains (run_pk, unauthorized_actions);
CREATE INDEX chains_by_attributed ON chains (run_pk, attributed_memory_induced);
CREATE INDEX chains_by_annotation ON chains (run_pk, needs_annotation);
CREATE INDEX chains_by_condition ON chains (run_pk, condition_id);
CREATE INDEX chains_by_case ON chains (case_pk);

CREATE TABLE memories (
  mem_pk           INTEGER PRIMARY KEY,
  run_pk           INTEGER NOT NULL REFERENCES runs (run_pk),
  memory_id        TEXT NOT NULL,
  chain_pk         INTEGER NOT NULL REFERENCES chains (chain_pk),
  eal_chain_id     TEXT NOT NULL,
  parent_memory_id TEXT,
  block_index      INTEGER NOT NULL,
  architecture     TEXT NOT NULL,
  origin           TEXT NOT NULL,
  content_hash     TEXT NOT NULL,
  payload_json     TEXT NOT NULL,
  payload_text     TEXT NOT NULL,
  line             INTEGER NOT NULL,
  row_json         TEXT NOT NULL,
  UNIQUE (run_pk, memory_id)
);
CREATE INDEX memories_by_chain ON memories (chain_pk, block_index);

CREATE TABLE attempts (
  run_pk             INTEGER NOT NULL REFERENCES runs (run_pk),
  attempt_id         TEXT NOT NULL,
  chain_pk           INTEGER NOT NULL REFERENCES chains (chain_pk),
  block_index        INTEGER NOT NULL,
  attempt_index      INTEGER NOT NULL,
  status             TEXT NOT NULL,
  detail             TEXT,
  accepted_memory_id TEXT,
  retained_memory_id TEXT,
  line               INTEGER NOT NULL,
  row_json           TEXT NOT NULL,
  PRIMARY KEY (run_pk, attempt_id)
) WITHOUT ROWID;
CREATE INDEX attempts_by_chain ON attempts (chain_pk, block_index, attempt_index);

CREATE TABLE states (
  run_pk            INTEGER NOT NULL REFERENCES runs (run_pk),
  state_id          TEXT NOT NULL,
  chain_pk          INTEGER NOT NULL REFERENCES chains (chain_pk),
  block_index       INTEGER NOT NULL,
  status            TEXT NOT NULL,
  current_memory_id TEXT,
  changed           INTEGER NOT NULL,
  line              INTEGER NOT NULL,
  row_json          TEXT NOT NULL,
  PRIMARY KEY (run_pk, state_id)
) WITHOUT ROWID;
CREATE INDEX states_by_chain ON states (chain_pk, block_index);

CREATE TABLE evidence (
  run_pk       INTEGER NOT NULL REFERENCES runs (run_pk),
  evidence_id  TEXT NOT NULL,
  chain_pk     INTEGER NOT NULL REFERENCES chains (chain_pk),
  memory_id    TEXT,
  architecture TEXT,
  content_hash TEXT NOT NULL,
  line         INTEGER NOT NULL,
  row_json     TEXT NOT NULL,
  PRIMARY KEY (run_pk, evidence_id)
) WITHOUT ROWID;
CREATE INDEX evidence_by_chain ON evidence (chain_pk);

CREATE TABLE trials (
  trial_pk                  INTEGER PRIMARY KEY,
  run_pk                    INTEGER NOT NULL REFERENCES runs (run_pk),
  chain_pk                  INTEGER NOT NULL REFERENCES chains (chain_pk),
  line                      INTEGER NOT NULL,
  trial_id                  TEXT NOT NULL,
  case_id                   TEXT NOT NULL,
  probe_id                  TEXT NOT NULL,
  condition_id              TEXT NOT NULL,
  evidence_id               TEXT,
  memory_id                 TEXT,
  executor_target           TEXT NOT NULL,
  executor_run_id           INTEGER NOT NULL,
  oracle_block_index        INTEGER,
  decision                  TEXT NOT NULL,
  request_authorized        INTEGER NOT NULL,
  requested_action_taken    INTEGER NOT NULL,
  unauthorized_action_taken INTEGER NOT NULL,
  action_mismatch           INTEGER NOT NULL,
  compliant                 INTEGER NOT NULL,
  parseable                 INTEGER NOT NULL,
  provider_error            TEXT,
  raw_tool_name             TEXT,
  raw_tool_arguments_json   TEXT NOT NULL,
  rescored_decision         TEXT,
  rescore_status            TEXT NOT NULL,
  row_json                  TEXT NOT NULL
);
CREATE INDEX trials_by_chain ON trials (chain_pk, probe_id);
CREATE INDEX trials_by_run ON trials (run_pk, decision);

CREATE TABLE model_contexts (
  run_pk            INTEGER NOT NULL REFERENCES runs (run_pk),
  context_id        TEXT NOT NULL,
  call_id           TEXT NOT NULL,
  stage             TEXT NOT NULL,
  trial_id          TEXT,
  memory_attempt_id TEXT,
  line              INTEGER NOT NULL,
  row_json          TEXT NOT NULL,
  PRIMARY KEY (run_pk, context_id)
) WITHOUT ROWID;
CREATE INDEX model_contexts_by_trial ON model_contexts (run_pk, trial_id);

CREATE TABLE calls (
  run_pk   INTEGER NOT NULL REFERENCES runs (run_pk),
  artifact TEXT NOT NULL,
  line     INTEGER NOT NULL,
  call_id  TEXT NOT NULL,
  task     TEXT,
  error    TEXT,
  row_json TEXT NOT NULL,
  PRIMARY KEY (run_pk, artifact, line)
) WITHOUT ROWID;
CREATE INDEX calls_by_id ON calls (run_pk, call_id);

CREATE TABLE executor_plan (
  run_pk             INTEGER NOT NULL REFERENCES runs (run_pk),
  trial_id           TEXT NOT NULL,
  call_id            TEXT NOT NULL,
  oracle_block_index INTEGER,
  line               INTEGER NOT NULL,
  row_json           TEXT NOT NULL,
  PRIMARY KEY (run_pk, line)
) WITHOUT ROWID;
CREATE INDEX executor_plan_by_trial ON executor_plan (run_pk, trial_id);

-- ealscope's faults.jsonl: what the scripted writer injected where.
CREATE TABLE faults (
  run_pk           INTEGER NOT NULL REFERENCES runs (run_pk),
  line             INTEGER NOT NULL,
  family           TEXT NOT NULL,
  case_id          TEXT NOT NULL,
  condition_id     TEXT NOT NULL,
  writer_run_id    INTEGER NOT NULL,
  block_index      INTEGER NOT NULL,
  authorization_id TEXT NOT NULL,
  field            TEXT NOT NULL,
  memory_id        TEXT NOT NULL,
  row_json         TEXT NOT NULL,
  PRIMARY KEY (run_pk, line)
) WITHOUT ROWID;
CREATE INDEX faults_by_case ON faults (run_pk, case_id, condition_id, writer_run_id, block_index);

-- Every other artifact a run lists (fidelity.jsonl, interventions.jsonl, writer_* copies, ...):
-- kept verbatim so nothing verified is dropped.
CREATE TABLE extra_rows (
  run_pk   INTEGER NOT NULL REFERENCES runs (run_pk),
  artifact TEXT NOT NULL,
  line     INTEGER NOT NULL,
  row_json TEXT NOT NULL,
  PRIMARY KEY (run_pk, artifact, line)
) WITHOUT ROWID;

-- Per chain and block: the current memory and its scores against the ledger at that block.
CREATE TABLE chain_blocks (
  chain_pk              INTEGER NOT NULL REFERENCES chains (chain_pk),
  block_index           INTEGER NOT NULL,
  memory_id             TEXT,
  update_status         TEXT,
  exact                 INTEGER,
  exact_fields          INTEGER NOT NULL,
  overgrant_fields      INTEGER NOT NULL,
  undergrant_fields     INTEGER NOT NULL,
  forms_false_authority INTEGER,
  formed_probe_ids_json TEXT NOT NULL,
  scored_from           TEXT NOT NULL,
  unscored_reason       TEXT,
  first_false_authority INTEGER NOT NULL,
  PRIMARY KEY (chain_pk, block_index)
) WITHOUT ROWID;

-- A memory version scored against the ledger at one block (its own block, every block where it
-- is a chain's current memory, and the oracle block of its trials).
CREATE TABLE memory_scores (
  run_pk                INTEGER NOT NULL REFERENCES runs (run_pk),
  memory_id             TEXT NOT NULL,
  block_index           INTEGER NOT NULL,
  exact                 INTEGER,
  errors_json           TEXT NOT NULL,
  exact_fields          INTEGER NOT NULL,
  overgrant_fields      INTEGER NOT NULL,
  undergrant_fields     INTEGER NOT NULL,
  scored_fields         INTEGER NOT NULL,
  probes_denied         INTEGER NOT NULL,
  forms_false_authority INTEGER,
  formed_probe_ids_json TEXT NOT NULL,
  scored_from           TEXT NOT NULL,
  unscored_reason       TEXT,
  PRIMARY KEY (run_pk, memory_id, block_index)
) WITHOUT ROWID;

CREATE TABLE fidelity_rows (
  run_pk           INTEGER NOT NULL REFERENCES runs (run_pk),
  memory_id        TEXT NOT NULL,
  block_index      INTEGER NOT NULL,
  seq              INTEGER NOT NULL,
  authorization_id TEXT NOT NULL,
  field            TEXT NOT NULL,
  canonical_json   TEXT NOT NULL,
  remembered_json  TEXT NOT NULL,
  errors_json      TEXT NOT NULL,
  exact            INTEGER NOT NULL,
  overgrant        INTEGER NOT NULL,
  undergrant       INTEGER NOT NULL,
  PRIMARY KEY (run_pk, memory_id, block_index, seq)
) WITHOUT ROWID;

-- Formation of one memory version at one block, per probe (every probe, denied or not).
CREATE TABLE formation (
  run_pk            INTEGER NOT NULL REFERENCES runs (run_pk),
  memory_id         TEXT NOT NULL,
  block_index       INTEGER NOT NULL,
  probe_id          TEXT NOT NULL,
  ledger_authorized INTEGER NOT NULL,
  memory_authorized INTEGER NOT NULL,
  memory_reason     TEXT NOT NULL,
  formed            INTEGER NOT NULL,
  PRIMARY KEY (run_pk, memory_id, block_index, probe_id)
) WITHOUT ROWID;

CREATE TABLE rescore_disagreements (
  run_pk   INTEGER NOT NULL REFERENCES runs (run_pk),
  trial_pk INTEGER NOT NULL REFERENCES trials (trial_pk),
  field    TEXT NOT NULL,
  stored   TEXT NOT NULL,
  rescored TEXT NOT NULL,
  PRIMARY KEY (run_pk, trial_pk, field)
) WITHOUT ROWID;

CREATE TABLE attribution (
  run_pk                        INTEGER NOT NULL REFERENCES runs (run_pk),
  trial_pk                      INTEGER NOT NULL REFERENCES trials (trial_pk),
  chain_pk                      INTEGER NOT NULL REFERENCES chains (chain_pk),
  exact_trial_pk                INTEGER,
  evidence_id                   TEXT NOT NULL,
  case_id                       TEXT NOT NULL,
  probe_id                      TEXT NOT NULL,
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
  PRIMARY KEY (run_pk, trial_pk)
) WITHOUT ROWID;
CREATE INDEX attribution_by_chain ON attribution (chain_pk, probe_id);

-- Full-text search: turn text (rowid = turns.turn_pk) and free-text memory payloads
-- (rowid = memories.mem_pk).
CREATE VIRTUAL TABLE turns_fts USING fts5 (content, speaker, tokenize = 'unicode61');
CREATE VIRTUAL TABLE memories_fts USING fts5 (payload, tokenize = 'unicode61');
