package cybersecurity

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
)

var update = flag.Bool("update", false, "rewrite corpus/builtin_v1.json from the generator")

// TestBuiltinCorpusRegenerates: the embedded corpus is exactly the generator's output for
// BuiltinSeed, so the file and the code that wrote it cannot drift apart.
func TestBuiltinCorpusRegenerates(t *testing.T) {
	ealtest.CheckEmbeddedCorpus(t, Domain{}, BuiltinCorpusBytes, *update,
		"go test ./domains/cybersecurity -run TestBuiltinCorpusRegenerates -update")
}

func builtinCases(t *testing.T) []*engine.Case { return ealtest.Builtin(t, Domain{}) }

// TestBuiltinCorpusShape: at least 8 cases of 10 blocks; the four mechanisms; one signed
// atomic change set as the last block's only authorization turn; a stale handoff quoting the
// pre-final grants; every pair separated at the final block; and the stale (block 8) ledger
// granting the out-of-scope request of every single-record mechanism, so that a memory that
// misses the change set forms false authority.
func TestBuiltinCorpusShape(t *testing.T) {
	d := Domain{}
	cases := ealtest.BuiltinAtLeast(t, d, 8)
	families := map[string]bool{}
	for _, c := range cases {
		src := c.Source.(*Case)
		families[src.Family] = true
		if len(c.Blocks) != 10 {
			t.Errorf("%s: %d blocks", c.ID, len(c.Blocks))
		}
		last := src.Blocks[9]
		var changeSet, handoff string
		for _, tu := range last.Turns {
			if strings.Contains(tu.Text, "SIGNED_CHANGE_SET") && strings.Contains(tu.Text, "ATOMIC") {
				changeSet = tu.TurnID
			}
			if strings.Contains(tu.Text, "STALE_HANDOFF") {
				handoff = tu.Text
				if tu.SpeakerID == Issuer {
					t.Errorf("%s: the stale handoff must not be authoritative", c.ID)
				}
			}
		}
		if changeSet == "" || handoff == "" {
			t.Fatalf("%s: block 9 lacks the change set or the stale handoff", c.ID)
		}
		types := ""
		for _, e := range src.Events {
			if e.BlockIndex == 9 {
				if e.SourceTurnID != changeSet {
					t.Errorf("%s: block 9 event %s is not from the change set", c.ID, e.ID)
				}
				types += e.Type[:1]
			}
		}
		if !strings.Contains(types, "p") || !strings.Contains(types, "r") || !strings.Contains(types, "i") {
			t.Errorf("%s: change set operations %q", c.ID, types)
		}
		prefinal, err := d.Replay(c, 8)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range prefinal {
			if !strings.Contains(handoff, r.AuthorizationID()) {
				t.Errorf("%s: the stale handoff does not quote pre-final grant %s", c.ID, r.AuthorizationID())
			}
		}
		mechs := map[string]bool{}
		for _, p := range c.Probes {
			mech := p.Metadata["mechanism"].(string)
			mechs[mech] = true
			final, err := engine.Oracle(d, c, -1, p.Request)
			if err != nil {
				t.Fatal(err)
			}
			if final.Authorized != (p.Scope == "in_scope") {
				t.Errorf("%s %s: final verdict %s", c.ID, p.ID, final.Reason)
			}
			stale := engine.Authorizes(d, c, prefinal, p.Request)
			if p.Scope == "out_of_scope" && mech != "cross_record" && !stale.Authorized {
				t.Errorf("%s %s: the pre-final ledger should grant it (%s)", c.ID, p.ID, stale.Reason)
			}
			if mech == "cross_record" && stale.Authorized && p.Scope == "out_of_scope" {
				t.Errorf("%s %s: a cross-record request must never be granted by one record", c.ID, p.ID)
			}
		}
		for _, m := range []string{"late_narrowing", "revoked_action", "cross_record", "time_shift"} {
			if !mechs[m] {
				t.Errorf("%s: mechanism %s missing", c.ID, m)
			}
		}
	}
	if len(families) < 8 {
		t.Errorf("%d families, want 8", len(families))
	}
}

func TestGenerateDeterministic(t *testing.T) {
	a := ealtest.CheckSeededBytes(t, GenerateCorpus, 5, 7)
	// The streamed document is what EncodeCorpus writes, and the reader takes it.
	cases, err := Generate(5, 7)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := EncodeCorpus(GeneratedCorpusVersion, cases)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(whole, '\n'), a) {
		t.Error("WriteCorpus and EncodeCorpus disagree")
	}
	parsed, err := Domain{}.ParseCorpus("gen.json", a)
	if err != nil || len(parsed) != 5 {
		t.Fatalf("%d cases, %v", len(parsed), err)
	}
	// A prefix of a longer run is the shorter run.
	first, err := Generate(3, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i := range first {
		if first[i].CaseID != cases[i].CaseID || first[i].Events[0].Record.ID != cases[i].Events[0].Record.ID {
			t.Errorf("case %d differs between n=3 and n=5", i)
		}
	}
}

func TestCaseDocumentRoundTrip(t *testing.T) {
	d := Domain{}
	for _, c := range builtinCases(t) {
		doc, err := CaseDocument(c)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(doc, []byte("\n")) {
			t.Fatalf("%s: the case document spans lines", c.ID)
		}
		back, err := d.ParseCorpus("stored", doc)
		if err != nil || len(back) != 1 || back[0].ID != c.ID {
			t.Fatalf("%s: %v", c.ID, err)
		}
		again, _ := CaseDocument(back[0])
		if !bytes.Equal(doc, again) {
			t.Errorf("%s: the document is not stable", c.ID)
		}
	}
}
