package cybersecurity

import "github.com/ealscope/ealscope/engine"

// Cybersecurity's reading of who stands behind a turn (docs/FORMATS.md 8.1, EAL-Bench
// domains/source_authority.py), which envelope.Adapter (on kit.Adapter) implements from the domain's spec:
// turns carry no actor_id, so a turn speaks for its speaker_id; the case metadata names no
// principals, so the grant-capable ones come from the prompt-policy context (the security
// duty officer, Issuer); a record cites its source_turn_ids list item by item (a list item
// "a | b" is one citation).

var _ engine.SourceAuthorityRules = Domain{}
