-- Audience sidecars (docs/AUDIENCE.md): who was present at each turn, who asks each probe, the
-- explicit audience grants and the hidden ground truth of a multi-party corpus. A sidecar is
-- stored once per (domain, corpus version, content); a run that brought its sidecar with it
-- names the one it used.
CREATE TABLE audience_sidecars (
  sidecar_pk     INTEGER PRIMARY KEY,
  domain_id      TEXT NOT NULL,
  corpus_version TEXT NOT NULL,
  source         TEXT NOT NULL,
  sha256         TEXT NOT NULL,
  case_count     INTEGER NOT NULL,
  sidecar_json   TEXT NOT NULL,
  imported_at    TEXT NOT NULL,
  UNIQUE (domain_id, corpus_version, sha256)
);

CREATE TABLE run_audiences (
  run_pk     INTEGER PRIMARY KEY REFERENCES runs (run_pk),
  sidecar_pk INTEGER NOT NULL REFERENCES audience_sidecars (sidecar_pk)
);
