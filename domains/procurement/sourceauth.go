package procurement

import "github.com/ealscope/ealscope/engine"

// Procurement's reading of who stands behind a turn (docs/FORMATS.md 8.1, EAL-Bench
// domains/source_authority.py): a turn speaks for its actor, and the principals able to grant
// are the case metadata's authorized issuers.

var _ engine.SourceAuthorityRules = Domain{}

// TurnPrincipal implements engine.SourceAuthorityRules: the turn's actor_id (EAL-Bench reads
// actor_id before speaker_id, and procurement turns carry one).
func (Domain) TurnPrincipal(t engine.Turn) string { return t.ActorID }

// AuthorityCapablePrincipals implements engine.SourceAuthorityRules: the case's
// authorized_issuers (procurement metadata has no authorized_principals key, so EAL-Bench
// falls back to authorized_issuers).
func (Domain) AuthorityCapablePrincipals(c *engine.Case) []string {
	return append([]string(nil), c.AuthorizedIssuers...)
}

// RecordCitations implements engine.SourceAuthorityRules: the record's source_turn_ids list,
// item by item (list items are never split). A record of another domain cites nothing.
func (Domain) RecordCitations(r engine.Record) []string {
	if e, ok := r.(*Envelope); ok {
		return append([]string(nil), e.SourceTurnIDs...)
	}
	return nil
}
