package finance

import (
	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
)

// Finance's reading of who stands behind a turn (FORMAT.md 8.1, EAL-Bench
// domains/source_authority.py): turns carry no actor_id, so a turn speaks for its speaker_id;
// the grant-capable principals come from the prompt-policy context (the portfolio mandate
// officer).

var _ engine.SourceAuthorityRules = Domain{}

// TurnPrincipal implements engine.SourceAuthorityRules: the turn's speaker_id (engine.Turn
// carries it as ActorID).
func (Domain) TurnPrincipal(t engine.Turn) string { return t.ActorID }

// AuthorityCapablePrincipals implements engine.SourceAuthorityRules: the prompt-policy
// context's authorized_principals.
func (Domain) AuthorityCapablePrincipals(*engine.Case) []string { return []string{MandateIssuer} }

// RecordCitations implements engine.SourceAuthorityRules. EAL-Bench's gate reads the flat
// record's source_turn_ids string split on exactly " | ", parts unstripped; the parser keeps
// exactly those parts (it strips the whole string, then splits), and the gate's
// serialise-then-split round trip gives them back unchanged. A record of another domain
// cites nothing.
func (Domain) RecordCitations(r engine.Record) []string {
	if e, ok := r.(*envelope.Record); ok {
		return append([]string(nil), e.SourceTurnIDs...)
	}
	return nil
}
