-- The run summary counts each run's provider-error trials and writer-error attempts
-- (runs.runColumns). Without these the counts read every trial and attempt row of the run,
-- row_json and all: 2.1 s on a 5,000-case workspace, paid by every run lookup and by the TUI's
-- first frame. Partial indexes hold only the error rows, so they cost nothing on a clean run.
CREATE INDEX trials_provider_errors ON trials (run_pk) WHERE provider_error IS NOT NULL;
CREATE INDEX attempts_writer_errors ON attempts (chain_pk) WHERE status = 'writer_error';
