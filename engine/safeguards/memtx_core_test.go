package safeguards

import (
	"slices"
	"strings"
	"testing"
)

// The sources the table uses: authority-capable at blocks 0, 2 and 5, two other principals,
// an unknown turn and a turn not yet visible.
const (
	sCap0 = iota
	sCap2
	sCap5
	sOtherA
	sOtherB
	sUnknown
	sFuture
	sWeak
)

var tableSources = []MTXSource{
	{Turn: "cap0", Authority: 1, Class: 0, Block: 0},
	{Turn: "cap2", Authority: 1, Class: 0, Block: 2},
	{Turn: "cap5", Authority: 1, Class: 0, Block: 5},
	{Turn: "otherA", Authority: 0.5, Class: 1, Block: 1, Problem: TxReasonNotAuthorityCapable},
	{Turn: "otherB", Authority: 0.5, Class: 2, Block: 1, Problem: TxReasonNotAuthorityCapable},
	{Turn: "nowhere", Authority: 0, Block: -1, Problem: TxReasonUnknownProvenance},
	{Turn: "later", Authority: 0, Block: 7, Problem: TxReasonFutureProvenance},
	{Turn: "weak", Authority: 0.8, Class: 3, Block: 1},
}

type txStep struct {
	seq    int
	writes []MTXWrite
}

func put(rec int, value int32, status MTXStatus, sup int, from, until int64, sources ...int) MTXWrite {
	return MTXWrite{Record: rec, Kind: MTXPut, Successor: -1, Sources: sources, Version: MTXVersion{
		Slots: []int32{value, int32(status)}, Status: status, From: from, Until: until, IntervalOK: from < until,
		Supersedes: sup, Citations: sources}}
}

func grant(rec int, value int32, sources ...int) MTXWrite {
	return put(rec, value, MTXStatusActive, -1, 0, 1000, sources...)
}

func retract(rec, successor int, sources ...int) MTXWrite {
	return MTXWrite{Record: rec, Kind: MTXRetract, Successor: successor, Sources: sources}
}

func runSteps(p MemTXParams, steps []txStep) (*MTXStore, []MTXOutcome) {
	s := NewMTXStore(p, tableSources)
	var last []MTXOutcome
	for _, st := range steps {
		s.Begin(st.seq, int64(st.seq)*10, false)
		for _, w := range st.writes {
			s.Stage(w)
		}
		last = s.Commit()
	}
	return s, last
}

func viewOf(s *MTXStore, rec int) MTXRecordView {
	for _, v := range s.View() {
		if v.Record == rec {
			return v
		}
	}
	return MTXRecordView{Record: rec, State: "absent"}
}

func confident() MemTXParams {
	p := DefaultMemTXParams()
	p.WriterConfidence = 0.8
	return p
}

// Every check, the outcome of its failing (or passing) write, and the record's resulting
// state and reason.
func TestMemTXChecks(t *testing.T) {
	cases := []struct {
		name    string
		params  MemTXParams
		steps   []txStep
		rec     int
		outcome string // the last transaction's outcome for rec ("" to skip)
		reason  string // prefix of the outcome's reason
		state   string // the record's state after
		why     string // prefix of one of the record's reasons ("" for none)
	}{
		{"evidence passes on authority-capable sources", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}}, 0, MTXStateCommitted, "", MTXStateActionSafe, ""},
		{"evidence: another principal's turn", DefaultMemTXParams(),
			[]txStep{{1, []MTXWrite{grant(0, 1, sOtherA)}}}, 0, MTXStateQuarantined, TxReasonNotAuthorityCapable + ":otherA", MTXStateQuarantined, TxReasonNotAuthorityCapable},
		{"evidence: the least trusted source governs", DefaultMemTXParams(),
			[]txStep{{1, []MTXWrite{grant(0, 1, sCap0, sOtherA)}}}, 0, MTXStateQuarantined, TxReasonNotAuthorityCapable, MTXStateQuarantined, TxReasonNotAuthorityCapable},
		{"evidence: no citation", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1)}}}, 0, MTXStateQuarantined, TxReasonMissingProvenance, MTXStateQuarantined, TxReasonMissingProvenance},
		{"evidence: unknown turn", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sUnknown)}}}, 0, MTXStateQuarantined, TxReasonUnknownProvenance + ":nowhere", MTXStateQuarantined, TxReasonUnknownProvenance},
		{"evidence: turn not yet visible", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sFuture)}}}, 0, MTXStateQuarantined, TxReasonFutureProvenance + ":later", MTXStateQuarantined, TxReasonFutureProvenance},
		{"evidence: authority short of the bar with nothing wrong with the turn", DefaultMemTXParams(),
			[]txStep{{1, []MTXWrite{grant(0, 1, sWeak)}}}, 0, MTXStateQuarantined, TxReasonInsufficientEvidence + ":authority=0.8", MTXStateQuarantined, TxReasonInsufficientEvidence},
		{"a committed record whose status is not active is not action-safe", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{put(0, 1, MTXStatusOther, -1, 0, 1000, sCap0)}}}, 0, MTXStateCommitted, "", MTXStateCommitted, TxReasonNotActive},
		{"a descendant of a record whose revocation is pending is not action-safe", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0), put(1, 2, MTXStatusActive, 0, 0, 1000, sCap0)}}, {2, []MTXWrite{retract(0, -1)}}},
			1, "", "", MTXStateCommitted, TxReasonAncestorPending + ":0"},
		{"evidence: a confident writer needs no authority", confident(),
			[]txStep{{1, []MTXWrite{grant(0, 1, sOtherA)}}}, 0, MTXStateCommitted, "", MTXStateActionSafe, ""},
		{"validity: malformed interval", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{put(0, 1, MTXStatusActive, -1, 50, 50, sCap0)}}}, 0, MTXStateQuarantined, TxReasonInvalidInterval, MTXStateQuarantined, TxReasonInvalidInterval},
		{"validity: expired", DefaultMemTXParams(),
			[]txStep{{3, []MTXWrite{put(0, 1, MTXStatusActive, -1, 0, 30, sCap0)}}}, 0, MTXStateQuarantined, TxReasonExpired, MTXStateQuarantined, TxReasonExpired},
		{"validity: window opens later: committed, not action-safe", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{put(0, 1, MTXStatusActive, -1, 100, 200, sCap0)}}}, 0, MTXStateCommitted, "", MTXStateCommitted, TxReasonNotValidNow},
		{"validity: a revocation needs no window", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{put(0, 1, MTXStatusRevoked, -1, 50, 50, sCap0)}}}, 0, MTXStateRevoked, TxReasonRevokedByWrite, MTXStateRevoked, TxReasonRevokedByWrite},
		{"conflict: stale late write aborts before authority", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{grant(0, 2, sCap2)}}, {3, []MTXWrite{grant(0, 1, sCap0)}}},
			0, "aborted", TxReasonStaleLateWrite, MTXStateActionSafe, ""},
		{"conflict: newer evidence from the same source supersedes", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{grant(0, 2, sCap2)}}}, 0, MTXStateCommitted, "", MTXStateActionSafe, ""},
		{"conflict: lower authority aborts", confident(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{grant(0, 2, sOtherA)}}}, 0, "aborted", TxReasonLowerAuthority, MTXStateActionSafe, ""},
		{"conflict: higher authority supersedes", confident(),
			[]txStep{{1, []MTXWrite{grant(0, 1, sOtherA)}}, {2, []MTXWrite{grant(0, 2, sCap2)}}}, 0, MTXStateCommitted, "", MTXStateActionSafe, ""},
		{"conflict: equal authority, different sources: quarantined", confident(),
			[]txStep{{1, []MTXWrite{grant(0, 1, sOtherA)}}, {2, []MTXWrite{grant(0, 2, sOtherB)}}}, 0, MTXStateQuarantined, TxReasonEqualAuthority, MTXStateCommitted, TxReasonDisputed},
		{"conflict: restating a revoked grant as active is blocked", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{put(0, 1, MTXStatusRevoked, -1, 0, 1000, sCap2)}}, {5, []MTXWrite{grant(0, 1, sCap5)}}},
			0, "blocked", TxReasonRestatesRevoked, MTXStateRevoked, TxReasonRevokedByWrite},
		{"conflict: writing a superseded record is blocked", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{put(0, 1, MTXStatusSuperseded, -1, 0, 1000, sCap2)}}, {5, []MTXWrite{grant(0, 2, sCap5)}}},
			0, "blocked", TxReasonWriteToTerminal, MTXStateSuperseded, TxReasonSupersededByRecord},
		{"conflict: a write derived from a revoked record is blocked", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{put(0, 1, MTXStatusRevoked, -1, 0, 1000, sCap2)}},
				{5, []MTXWrite{put(1, 2, MTXStatusActive, 0, 0, 1000, sCap5)}}},
			1, "blocked", TxReasonDerivedFromRevoked + ":0", MTXStateQuarantined, TxReasonDerivedFromRevoked},
		{"dependency: a pending revocation among the ancestors", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{retract(0, -1), put(1, 2, MTXStatusActive, 0, 0, 1000, sCap2)}}},
			1, MTXStateQuarantined, TxReasonPendingRevocationAn + ":0", MTXStateQuarantined, TxReasonPendingRevocationAn},
		{"dependency: the ancestor whose revocation is pending is not action-safe", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{retract(0, -1)}}},
			0, MTXStateQuarantined, TxReasonMissingProvenance, MTXStateCommitted, TxReasonDisputed},
		{"retraction with evidence revokes", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{retract(0, -1, sCap2)}}}, 0, MTXStateRevoked, TxReasonRevokedByWrite, MTXStateRevoked, TxReasonRevokedByWrite},
		{"retraction by a successor supersedes", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{retract(0, 1, sCap2), put(1, 2, MTXStatusActive, 0, 0, 1000, sCap2)}}},
			0, MTXStateSuperseded, TxReasonSupersededByRecord + ":1", MTXStateSuperseded, TxReasonSupersededByRecord},
		{"the successor of a superseded record commits", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}, {2, []MTXWrite{retract(0, 1, sCap2), put(1, 2, MTXStatusActive, 0, 0, 1000, sCap2)}}},
			1, MTXStateCommitted, "", MTXStateActionSafe, ""},
		{"I2: a revocation quarantines the descendants", DefaultMemTXParams(),
			[]txStep{{0, []MTXWrite{grant(0, 1, sCap0), put(1, 2, MTXStatusActive, 0, 0, 1000, sCap0)}}, {2, []MTXWrite{retract(0, -1, sCap2)}}},
			1, "", "", MTXStateQuarantined, TxReasonAncestorRevoked + ":0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, outs := runSteps(tc.params, tc.steps)
			if tc.outcome != "" {
				var got *MTXOutcome
				for i := range outs {
					if outs[i].Record == tc.rec {
						got = &outs[i]
					}
				}
				if got == nil {
					t.Fatalf("no outcome for record %d: %+v", tc.rec, outs)
				}
				if got.State != tc.outcome || !strings.HasPrefix(got.Reason, tc.reason) {
					t.Fatalf("outcome %s (%s), want %s (%s...)", got.State, got.Reason, tc.outcome, tc.reason)
				}
			}
			v := viewOf(s, tc.rec)
			if v.State != tc.state {
				t.Fatalf("state %s %v, want %s", v.State, v.Reasons, tc.state)
			}
			if tc.why == "" {
				if len(v.Reasons) != 0 {
					t.Fatalf("reasons %v, want none", v.Reasons)
				}
				return
			}
			if !slices.ContainsFunc(v.Reasons, func(r string) bool { return strings.HasPrefix(r, tc.why) }) {
				t.Fatalf("reasons %v, want one starting %s", v.Reasons, tc.why)
			}
		})
	}
}

// The transient states: a staged write is tentative while its transaction is open; a grant
// whose window opens later turns action-safe once logical now enters it.
func TestMemTXTransientStatesAndTime(t *testing.T) {
	s := NewMTXStore(DefaultMemTXParams(), tableSources)
	s.Begin(0, 0, false)
	s.Stage(put(0, 1, MTXStatusActive, -1, 100, 200, sCap0))
	if v := viewOf(s, 0); v.State != MTXStateTentative {
		t.Fatalf("staged record is %s, want tentative", v.State)
	}
	if !s.InFlight() {
		t.Fatal("open transaction with a staged write is not in flight")
	}
	s.Commit()
	if v := viewOf(s, 0); v.State != MTXStateCommitted {
		t.Fatalf("after commit %s", v.State)
	}
	s.Advance(1, 150)
	if v := viewOf(s, 0); v.State != MTXStateActionSafe {
		t.Fatalf("inside the window %s %v", v.State, v.Reasons)
	}
	s.Advance(2, 250)
	if v := viewOf(s, 0); v.State != MTXStateCommitted || !slices.Contains(v.Reasons, TxReasonNotValidNow) {
		t.Fatalf("after the window %s %v", v.State, v.Reasons)
	}
	if len(MTXLifecycleStates) != 8 {
		t.Fatalf("%d lifecycle states", len(MTXLifecycleStates))
	}
}

// Read isolation levels expose progressively fewer records.
func TestMemTXIsolationLevels(t *testing.T) {
	s, _ := runSteps(DefaultMemTXParams(), []txStep{
		{0, []MTXWrite{grant(0, 1, sCap0), grant(1, 1, sCap0), grant(2, 1, sCap0), put(3, 1, MTXStatusActive, 2, 0, 1000, sCap0),
			put(4, 1, MTXStatusActive, -1, 100, 200, sCap0)}},
		{1, []MTXWrite{grant(0, 2, sOtherA), grant(5, 1, sOtherA)}},
		{2, []MTXWrite{retract(2, -1)}},
	})
	// 0: committed with a quarantined write pending; 1: action-safe; 2: committed with its
	// retraction pending; 3: its ancestor 2's retraction pending; 4: committed, its window
	// opens later; 5: never committed (quarantined).
	want := map[MTXIsolation][]int{
		MTXReadRaw:            {0, 1, 2, 3, 4, 5},
		MTXReadCommitted:      {0, 1, 2, 3, 4},
		MTXReadVerified:       {1, 3, 4},
		MTXReadCausallyStable: {1, 4},
		MTXReadActionSafe:     {1},
	}
	for level, ids := range want {
		var got []int
		for _, v := range s.Read(level).Records {
			got = append(got, v.Record)
		}
		if !slices.Equal(got, ids) {
			t.Errorf("level %d: %v, want %v", level, got, ids)
		}
	}
	tiers := []MTXIsolation{MTXIsolationFor(MTXTierLow), MTXIsolationFor(MTXTierMedium), MTXIsolationFor(MTXTierHigh), MTXIsolationFor(MTXTierExternalAction)}
	if !slices.Equal(tiers, []MTXIsolation{MTXReadCommitted, MTXReadVerified, MTXReadCausallyStable, MTXReadActionSafe}) {
		t.Fatalf("tiers read at %v", tiers)
	}
}

// I1's act rule: refused while a write is in flight, on a stale snapshot and without an
// action-safe record that authorizes; a run action under a later-revoked record is leaked.
func TestMemTXActRule(t *testing.T) {
	covers := func(q int32) func(MTXVersion) bool { return func(v MTXVersion) bool { return v.Slots[0] == q } }
	s, _ := runSteps(DefaultMemTXParams(), []txStep{{0, []MTXWrite{grant(0, 1, sCap0)}}})
	snap := s.Read(MTXReadActionSafe)
	if d := s.Act(snap, covers(2)); d.Allowed || d.Reason != TxReasonNoActionSafe {
		t.Fatalf("uncovered request: %+v", d)
	}
	s.Begin(1, 10, false)
	s.Stage(grant(0, 2, sCap2))
	if d := s.Act(snap, covers(1)); d.Allowed || d.Reason != TxReasonTentativeInFlight {
		t.Fatalf("in flight: %+v", d)
	}
	s.Commit()
	if d := s.Act(snap, covers(1)); d.Allowed || d.Reason != TxReasonSnapshotStale {
		t.Fatalf("stale snapshot: %+v", d)
	}
	fresh := s.Read(MTXReadActionSafe)
	if d := s.Act(fresh, covers(2)); !d.Allowed || d.Reason != TxReasonActionAuthorized || d.Record != 0 {
		t.Fatalf("fresh snapshot: %+v", d)
	}
	s.Begin(3, 30, false)
	s.Stage(retract(0, -1, sCap5))
	s.Commit()
	acts := s.Actions()
	if len(acts) != 1 || !acts[0].Leaked {
		t.Fatalf("actions after the revocation %+v, want one leaked", acts)
	}
}
