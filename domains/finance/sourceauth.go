package finance

import "github.com/ealscope/ealscope/engine"

// Finance's reading of who stands behind a turn (docs/FORMATS.md 8.1, EAL-Bench
// domains/source_authority.py), which envelope.Adapter (on kit.Adapter) implements from the domain's spec:
// turns carry no actor_id, so a turn speaks for its speaker_id; the grant-capable principals
// come from the prompt-policy context (the portfolio mandate officer, MandateIssuer).
//
// A record cites its source_turn_ids parts. EAL-Bench's gate reads the flat record's
// source_turn_ids string split on exactly " | ", parts unstripped; the parser keeps exactly
// those parts (it strips the whole string, then splits), and the gate's serialise-then-split
// round trip gives them back unchanged.

var _ engine.SourceAuthorityRules = Domain{}
