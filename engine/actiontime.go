package engine

// ActionClock is the optional role of a domain whose requests name the instant they are to
// be carried out (procurement's action_time, cybersecurity's and finance's requested_at). A
// policy that judges records at the moment an action runs (MemTX's logical now at the
// external-action tier) reads it here, never from the request's own fields by name.
type ActionClock interface {
	// ActionTime is the request's action instant as written (false when the request is not
	// the domain's).
	ActionTime(request any) (string, bool)
}
