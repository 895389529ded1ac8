package engine

// SourceAuthorityRules is a domain's reading of who stands behind its history (docs/FORMATS.md
// 8.1): the principal each turn speaks for, the principals of a case able to grant, and the
// turns a typed record cites. Safeguards that judge a record by its sources (the cited-source
// authority gate, a commit discipline's evidence check) read them here, never from the
// memory's own text.
type SourceAuthorityRules interface {
	// TurnPrincipal is the principal a turn speaks for (procurement: its actor; cybersecurity
	// and finance: its speaker).
	TurnPrincipal(t Turn) string
	// AuthorityCapablePrincipals are the principals of a case whose turns may grant.
	AuthorityCapablePrincipals(c *Case) []string
	// RecordCitations are the turn ids a typed record cites, exactly as EAL-Bench's gate reads
	// them (finance's flat string split on " | "; list items never split, parts not stripped).
	RecordCitations(r Record) []string
}
