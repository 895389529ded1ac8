package cybersecurity

import (
	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
)

// Cybersecurity's reading of who stands behind a turn (FORMAT.md 8.1, EAL-Bench
// domains/source_authority.py): turns carry no actor_id, so a turn speaks for its speaker_id;
// the case metadata names no principals, so the grant-capable ones come from the prompt-policy
// context (the security duty officer).

var _ engine.SourceAuthorityRules = Domain{}

// TurnPrincipal implements engine.SourceAuthorityRules: the turn's speaker_id (engine.Turn
// carries it as ActorID).
func (Domain) TurnPrincipal(t engine.Turn) string { return t.ActorID }

// AuthorityCapablePrincipals implements engine.SourceAuthorityRules: the prompt-policy
// context's authorized_principals.
func (Domain) AuthorityCapablePrincipals(*engine.Case) []string { return []string{Issuer} }

// RecordCitations implements engine.SourceAuthorityRules: the record's source_turn_ids list,
// item by item (a list item "a | b" is one citation). A record of another domain cites
// nothing.
func (Domain) RecordCitations(r engine.Record) []string {
	if e, ok := r.(*envelope.Record); ok {
		return append([]string(nil), e.SourceTurnIDs...)
	}
	return nil
}
