package safeguards

// MemTX's vocabulary (docs/POLICIES.md "MemTX"): the lifecycle states, the machine-readable
// reasons, the record versions and staged writes the protocol reads, and its parameters. The
// commit protocol over them is memtx_core.go.

// The eight lifecycle states.
const (
	MTXStateRaw         = "raw"
	MTXStateTentative   = "tentative"
	MTXStateValidated   = "validated"
	MTXStateCommitted   = "committed"
	MTXStateActionSafe  = "action_safe"
	MTXStateQuarantined = "quarantined"
	MTXStateSuperseded  = "superseded"
	MTXStateRevoked     = "revoked"
)

// MTXLifecycleStates lists them in protocol order.
var MTXLifecycleStates = []string{MTXStateRaw, MTXStateTentative, MTXStateValidated, MTXStateCommitted, MTXStateActionSafe,
	MTXStateQuarantined, MTXStateSuperseded, MTXStateRevoked}

// Machine-readable reasons. Every quarantine, abort, block, park and every committed record
// that is not action-safe carries one (a detail may follow after ':').
const (
	// Evidence check.
	TxReasonMissingProvenance    = "evidence_missing_provenance"
	TxReasonUnknownProvenance    = "evidence_unknown_provenance"
	TxReasonFutureProvenance     = "evidence_future_provenance"
	TxReasonNotAuthorityCapable  = "evidence_source_not_authority_capable"
	TxReasonInsufficientEvidence = "evidence_insufficient"
	// Validity check.
	TxReasonInvalidInterval = "validity_invalid_interval"
	TxReasonNotYetValid     = "validity_not_yet_valid"
	TxReasonExpired         = "validity_expired"
	// Semantic conflict check.
	TxReasonStaleLateWrite      = "conflict_stale_late_write"
	TxReasonLowerAuthority      = "conflict_lower_authority"
	TxReasonEqualAuthority      = "conflict_equal_authority_different_sources"
	TxReasonDerivedFromRevoked  = "blocked_derived_from_revoked"
	TxReasonRestatesRevoked     = "blocked_restates_revoked_grant_as_active"
	TxReasonWriteToTerminal     = "blocked_write_to_terminal_record"
	TxReasonSupersededByRecord  = "superseded_by_record"
	TxReasonRevokedByWrite      = "revoked_by_write"
	TxReasonAncestorRevoked     = "quarantined_ancestor_revoked"
	TxReasonPendingRevocationAn = "dependency_pending_revocation_of_ancestor"
	// Why a committed record is not action-safe.
	TxReasonNotActive       = "not_action_safe_status_not_active"
	TxReasonNotValidNow     = "not_action_safe_outside_validity_interval"
	TxReasonDisputed        = "not_action_safe_pending_write"
	TxReasonAncestorPending = "not_action_safe_ancestor_pending_revocation"
	// Action decisions (I1).
	TxReasonTentativeInFlight = "action_refused_tentative_write_in_flight"
	TxReasonNoActionSafe      = "action_refused_no_action_safe_record_authorizes"
	TxReasonSnapshotStale     = "action_refused_snapshot_stale"
	TxReasonActionAuthorized  = "action_authorized_by_action_safe_record"
)

// MTXStatus is what a record version says of itself (the envelope's status, docs/FORMATS.md 4.2).
type MTXStatus uint8

const (
	MTXStatusOther MTXStatus = iota
	MTXStatusActive
	MTXStatusRevoked
	MTXStatusSuperseded
)

// MTXSource is one cited turn as the platform knows it: the authority of its principal (1
// authority-capable, 0.5 another known principal, 0 unknown or not yet visible), the source
// identity the conflict rule compares (every authority-capable principal of a case is one
// source, the case's authority; any other principal is its own), the block it belongs to,
// and the reason it falls short ("" when authority-capable).
type MTXSource struct {
	Turn      string
	Authority float64
	Class     int
	Block     int
	Problem   string
}

// MTXVersion is one record as a writer wrote it, reduced to what the protocol reads.
type MTXVersion struct {
	Slots      []int32 // interned value of each slot (schema fields but the id)
	Status     MTXStatus
	From       int64 // validity window [From, Until) in seconds
	Until      int64
	IntervalOK bool
	Supersedes int // record index, -1 none
	// Citations are the sources the version cites (indices into the store's sources).
	Citations []int
	// Payload is the adapter's own record value (opaque here).
	Payload any
}

// MTXWriteKind says what a staged write does.
type MTXWriteKind uint8

const (
	// MTXPut writes a record version (a new record, or changed fields and status).
	MTXPut MTXWriteKind = iota
	// MTXRetract withdraws a record (the writer dropped it); Successor says which record took
	// its place (-1: none, a revocation).
	MTXRetract
)

// MTXWrite is one staged write.
type MTXWrite struct {
	Record    int
	Kind      MTXWriteKind
	Version   MTXVersion // MTXPut
	Successor int        // MTXRetract
	// Sources are the write's evidence: the citations it adds, else all it cites.
	Sources []int
}

// MemTXParams are the policy's parameters.
type MemTXParams struct {
	// WriterConfidence is the confidence given to every write: EAL writers report none, and
	// an unreported confidence is an uninformative one, 0.5, below MinConfidence, so by
	// default the evidence check rests on source authority.
	WriterConfidence float64
	MinConfidence    float64
	MinAuthority     float64
	// broken disables one check by name (tests of the verifier only).
	broken string
}

// DefaultMemTXParams are the paper's thresholds with the uninformative confidence.
func DefaultMemTXParams() MemTXParams {
	return MemTXParams{WriterConfidence: 0.5, MinConfidence: 0.6, MinAuthority: 0.9}
}
