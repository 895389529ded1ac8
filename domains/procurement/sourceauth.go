package procurement

import "github.com/ealscope/ealscope/engine"

// Procurement's reading of who stands behind a turn (docs/FORMATS.md 8.1, EAL-Bench
// domains/source_authority.py), which kit.Adapter implements from the domain's spec: a turn
// speaks for its actor (EAL-Bench reads actor_id before speaker_id, and procurement turns
// carry one), the principals able to grant are the case metadata's authorized issuers, and a
// record cites its source_turn_ids list item by item (list items are never split).

var _ engine.SourceAuthorityRules = Domain{}

var _ engine.AudienceRules = Domain{}
