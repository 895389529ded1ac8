-- Token accounting: the prompt and completion tokens of every model call, so what a writer,
-- an executor or a safeguard costs can be read without decoding calls. A provider's usage
-- object gives them; when it gave none, ealscope counts them with the reference tokenizer and
-- marks the usage {"ealscope_counted": tokenizer} (docs/RELIABILITY.md), kept here as
-- counted = 1. NULL tokens: the call reported nothing (a failed call, or a run made before
-- tokens were recorded).

-- One row per call of an imported run (calls.jsonl and writer_calls), first row of a call id.
CREATE TABLE call_tokens (
  run_pk            INTEGER NOT NULL REFERENCES runs (run_pk),
  call_id           TEXT NOT NULL,
  task              TEXT,
  target_id         TEXT,
  prompt_tokens     INTEGER,
  completion_tokens INTEGER,
  counted           INTEGER,
  -- the call failed (its row has an error)
  failed            INTEGER NOT NULL,
  PRIMARY KEY (run_pk, call_id)
) WITHOUT ROWID;

INSERT OR IGNORE INTO call_tokens (run_pk, call_id, task, target_id, failed, prompt_tokens, completion_tokens, counted)
  SELECT run_pk, call_id, task, json_extract(row_json, '$.target_id'), error IS NOT NULL,
    json_extract(row_json, '$.usage.prompt_tokens'), json_extract(row_json, '$.usage.completion_tokens'),
    CASE WHEN json_type(row_json, '$.usage') = 'object' THEN json_type(row_json, '$.usage.ealscope_counted') IS NOT NULL END
  FROM calls WHERE json_valid(row_json) ORDER BY run_pk, artifact, line;

-- The runs list sums each run's writer and executor tokens (runs.runColumns); the partial
-- index holds only calls with usage, so a run without model calls costs nothing to list.
CREATE INDEX call_tokens_usage ON call_tokens (run_pk, task, prompt_tokens, completion_tokens)
  WHERE prompt_tokens IS NOT NULL OR completion_tokens IS NOT NULL;

-- Re-run arms (the safeguard lab's too) keep their own call's tokens.
ALTER TABLE replays ADD COLUMN prompt_tokens INTEGER;
ALTER TABLE replays ADD COLUMN completion_tokens INTEGER;
ALTER TABLE replays ADD COLUMN tokens_counted INTEGER;

UPDATE replays SET prompt_tokens = json_extract(usage_json, '$.prompt_tokens'), completion_tokens = json_extract(usage_json, '$.completion_tokens'),
  tokens_counted = json_type(usage_json, '$.ealscope_counted') IS NOT NULL
  WHERE json_valid(usage_json) AND json_type(usage_json) = 'object';
