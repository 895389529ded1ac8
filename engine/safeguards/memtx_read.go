package safeguards

// MemTX reads: record views, read isolation levels and risk tiers, snapshots, and the act
// rule of invariant I1 (docs/POLICIES.md "MemTX").

import "strconv"

// MTXRecordView is one record as a read sees it.
type MTXRecordView struct {
	Record  int
	State   string
	Reasons []string
	Version *MTXVersion // the committed version (nil: none)
	Pending *MTXWrite
}

// notActionSafe says why a committed, non-terminal record is not action-safe ("" if it is).
func (s *MTXStore) notActionSafe(i int) string {
	r := &s.recs[i]
	switch {
	case r.ver.Status != MTXStatusActive:
		return TxReasonNotActive
	case !r.ver.IntervalOK || s.now < r.ver.From || s.now >= r.ver.Until:
		return TxReasonNotValidNow
	case r.pending != nil:
		return TxReasonDisputed + ":" + r.pendWhy
	}
	for _, a := range s.chain(i, r.ver.Supersedes) {
		if p := s.recs[a].pending; p != nil && mtxIsRevocation(*p) {
			return TxReasonAncestorPending + ":" + strconv.Itoa(a)
		}
		if s.recs[a].state == MTXStateRevoked || s.recs[a].cascaded {
			return TxReasonAncestorPending + ":" + strconv.Itoa(a)
		}
	}
	return ""
}

// View is every known record's state at logical now.
func (s *MTXStore) View() []MTXRecordView {
	var out []MTXRecordView
	for i := range s.recs {
		r := &s.recs[i]
		if !r.known && !r.committed {
			continue
		}
		v := MTXRecordView{Record: i, State: r.state, Pending: r.pending}
		if r.reason != "" {
			v.Reasons = append(v.Reasons, r.reason)
		}
		if r.committed {
			ver := r.ver
			v.Version = &ver
			if r.state == MTXStateCommitted {
				if why := s.notActionSafe(i); why == "" {
					v.State = MTXStateActionSafe
				} else {
					v.Reasons = append(v.Reasons, why)
				}
			}
			if r.pending != nil && r.pendWhy != "" && r.state != MTXStateCommitted {
				v.Reasons = append(v.Reasons, r.pendState+":"+r.pendWhy)
			}
		} else if r.state == "" {
			v.State = MTXStateRaw
			if s.open != nil {
				for _, w := range s.open.writes {
					if w.Record == i {
						v.State = MTXStateTentative
					}
				}
			}
		}
		out = append(out, v)
	}
	return out
}

// Read isolation levels, from the widest to the narrowest.
type MTXIsolation int

const (
	// MTXReadRaw shows every record written, committed or not.
	MTXReadRaw MTXIsolation = iota
	// MTXReadCommitted shows committed beliefs (committed and action-safe).
	MTXReadCommitted
	// MTXReadVerified drops committed records with a pending (quarantined or parked) write.
	MTXReadVerified
	// MTXReadCausallyStable also drops records with a pending revocation among their ancestors.
	MTXReadCausallyStable
	// MTXReadActionSafe shows action-safe records only.
	MTXReadActionSafe
)

// Risk tiers pick an isolation level; the executor's act tool is the external-action tier,
// escalation and decline are low risk.
type MTXTier int

const (
	MTXTierLow MTXTier = iota
	MTXTierMedium
	MTXTierHigh
	MTXTierExternalAction
)

// MTXIsolationFor is the level a tier reads at.
func MTXIsolationFor(t MTXTier) MTXIsolation {
	switch t {
	case MTXTierMedium:
		return MTXReadVerified
	case MTXTierHigh:
		return MTXReadCausallyStable
	case MTXTierExternalAction:
		return MTXReadActionSafe
	}
	return MTXReadCommitted
}

// MTXSnapshot is what one read saw.
type MTXSnapshot struct {
	Seq     int
	Level   MTXIsolation
	Records []MTXRecordView
}

// Read takes a snapshot at an isolation level.
func (s *MTXStore) Read(level MTXIsolation) MTXSnapshot {
	snap := MTXSnapshot{Seq: s.seq, Level: level}
	for _, v := range s.View() {
		keep := false
		switch level {
		case MTXReadRaw:
			keep = true
		case MTXReadCommitted:
			keep = v.State == MTXStateCommitted || v.State == MTXStateActionSafe
		case MTXReadVerified:
			keep = (v.State == MTXStateCommitted || v.State == MTXStateActionSafe) && v.Pending == nil
		case MTXReadCausallyStable:
			keep = (v.State == MTXStateCommitted || v.State == MTXStateActionSafe) && v.Pending == nil &&
				s.notActionSafeAncestry(v.Record) == ""
		case MTXReadActionSafe:
			keep = v.State == MTXStateActionSafe
		}
		if keep {
			snap.Records = append(snap.Records, v)
		}
	}
	return snap
}

func (s *MTXStore) notActionSafeAncestry(i int) string {
	for _, a := range s.chain(i, s.recs[i].ver.Supersedes) {
		if p := s.recs[a].pending; p != nil && mtxIsRevocation(*p) {
			return TxReasonAncestorPending
		}
	}
	return ""
}

// MTXActionDecision is I1's verdict on one irreversible action.
type MTXActionDecision struct {
	Allowed bool
	Record  int
	Reason  string
}

// Act decides an irreversible action at the external-action tier on a caller's snapshot: it
// runs only if no tentative write is in flight (every in-flight write is outside any
// snapshot, which holds committed versions only) and a record of the snapshot authorizes it
// and is still action-safe in the same version now. A run action is logged (for I2).
func (s *MTXStore) Act(snap MTXSnapshot, authorizes func(MTXVersion) bool) MTXActionDecision {
	if s.InFlight() {
		return MTXActionDecision{Record: -1, Reason: TxReasonTentativeInFlight}
	}
	stale := false
	for _, v := range snap.Records {
		if v.State != MTXStateActionSafe || v.Version == nil || !authorizes(*v.Version) {
			continue
		}
		if !s.stillActionSafe(v) {
			stale = true
			continue
		}
		s.actions = append(s.actions, MTXActionLog{Record: v.Record, Seq: s.seq})
		return MTXActionDecision{Allowed: true, Record: v.Record, Reason: TxReasonActionAuthorized}
	}
	if stale {
		return MTXActionDecision{Record: -1, Reason: TxReasonSnapshotStale}
	}
	return MTXActionDecision{Record: -1, Reason: TxReasonNoActionSafe}
}

func (s *MTXStore) stillActionSafe(v MTXRecordView) bool {
	r := &s.recs[v.Record]
	return r.committed && r.state == MTXStateCommitted && mtxSameVersion(r.ver, *v.Version) &&
		s.notActionSafe(v.Record) == ""
}

func mtxSameVersion(a, b MTXVersion) bool {
	if a.Status != b.Status || a.From != b.From || a.Until != b.Until || a.IntervalOK != b.IntervalOK ||
		a.Supersedes != b.Supersedes || len(a.Slots) != len(b.Slots) {
		return false
	}
	for i := range a.Slots {
		if a.Slots[i] != b.Slots[i] {
			return false
		}
	}
	return true
}

// Actions are the irreversible actions that ran, with their leak marks.
func (s *MTXStore) Actions() []MTXActionLog { return append([]MTXActionLog(nil), s.actions...) }
