package procurement

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

func splitLines(t *testing.T, data []byte) [][]byte {
	t.Helper()
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("the corpus does not end in a newline")
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// TestGeneratedCasesAreValid re-parses 300 generated lines (3 seeds) with the strict reader and
// checks the oracle verdicts, the authoring hash and the id conventions.
func TestGeneratedCasesAreValid(t *testing.T) {
	d := Domain{}
	namespaces := map[string]string{}
	for _, seed := range []uint64{1, 2, 3} {
		data, err := GenerateJSONL(100, seed)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(`\u0026`)) || bytes.Contains(data, []byte(`\u003c`)) {
			t.Errorf("seed %d: HTML escaping in the output", seed)
		}
		lines := splitLines(t, data)
		if len(lines) != 100 {
			t.Fatalf("seed %d: want 100 lines, got %d", seed, len(lines))
		}
		if _, err := d.ParseCorpus("generated.jsonl", data); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for i, line := range lines {
			c, err := ParseCase(line)
			if err != nil {
				t.Fatalf("seed %d line %d: %v", seed, i+1, err)
			}
			again, err := MarshalCaseLine(c)
			if err != nil || !bytes.Equal(again, line) {
				t.Errorf("%s: the parsed case does not marshal back to its line (err %v)", c.CaseID, err)
			}
			if ok, err := AuthoringHashMatches(c); err != nil || !ok {
				t.Errorf("%s: authoring hash does not reproduce (err %v)", c.CaseID, err)
			}
			checkGeneratedCase(t, d, c, i+1)
			ns := c.Blocks[0].Turns[0].TurnID[4:12]
			if prev, dup := namespaces[ns]; dup {
				t.Errorf("%s: turn namespace %s already used by %s", c.CaseID, ns, prev)
			}
			namespaces[ns] = c.CaseID
		}
	}
}

func checkGeneratedCase(t *testing.T, d Domain, c *Case, line int) {
	t.Helper()
	if c.SchemaVersion != GeneratedCorpusVersion || c.Benchmark.Split != "generated" || c.Benchmark.CaseFamilyID != c.CaseID {
		t.Errorf("%s: schema_version %q, split %q, family %q", c.CaseID, c.SchemaVersion, c.Benchmark.Split, c.Benchmark.CaseFamilyID)
	}
	if !slices.Equal(c.Benchmark.TargetDimensions, []string{"amount", "time", "category"}) || len(c.Tags) == 0 {
		t.Errorf("%s: target dimensions %v, tags %v", c.CaseID, c.Benchmark.TargetDimensions, c.Tags)
	}
	turns := 0
	for _, b := range c.Blocks {
		turns += len(b.Turns)
		for _, tn := range b.Turns {
			if tn.TurnID[4:12] != c.Blocks[0].Turns[0].TurnID[4:12] {
				t.Errorf("%s: turn %s changes namespace", c.CaseID, tn.TurnID)
			}
		}
	}
	band := map[bool]string{true: "short", false: "medium"}[turns <= 55]
	if turns > 80 {
		band = "long"
	}
	if c.Benchmark.HistoryLengthBand != band {
		t.Errorf("%s: %d turns is %s, benchmark says %s", c.CaseID, turns, band, c.Benchmark.HistoryLengthBand)
	}
	for pi, p := range c.ProbePairs {
		if want := genDimensions[pi]; p.Dimension != want || p.PairID != c.CaseID+"_"+want ||
			p.InScope.Name != p.PairID+"_in" || p.OutOfScope.Transaction.TransactionID != c.CaseID+"_txn_"+want+"_out" {
			t.Errorf("%s: pair %d ids %s/%s/%s", c.CaseID, pi, p.PairID, p.InScope.Name, p.OutOfScope.Transaction.TransactionID)
		}
	}
	turnByID := map[string]Turn{}
	for _, b := range c.Blocks {
		for _, tn := range b.Turns {
			turnByID[tn.TurnID] = tn
		}
	}
	for _, e := range c.Events {
		src := turnByID[e.SourceTurnIDs[0]]
		if src.OccurredAt != e.EffectiveAt {
			t.Errorf("%s: event %s at %s, its source turn at %s", c.CaseID, e.EventID, e.EffectiveAt, src.OccurredAt)
		}
		if r := e.Record; r != nil {
			for _, want := range []string{r.AuthorizationID, r.Grantee, r.Vendor, r.ValidFrom, r.ValidUntil, genMoney(r.Currency, r.MaxAmount), genJoin(r.AllowedCategories)} {
				if !strings.Contains(src.Content, want) {
					t.Errorf("%s: source turn of %s does not state %q: %s", c.CaseID, e.EventID, want, src.Content)
				}
			}
		}
	}

	ec := ToEngine(c, line)
	records, err := d.Replay(ec, -1+len(c.Blocks))
	if err != nil {
		t.Fatalf("%s: %v", c.CaseID, err)
	}
	verdicts, err := engine.OracleProbes(d, ec, -1)
	if err != nil {
		t.Fatalf("%s: %v", c.CaseID, err)
	}
	for _, v := range verdicts {
		in := v.Probe.Scope == "in_scope"
		if v.Verdict.Authorized != in {
			t.Errorf("%s %s: authorized=%v (%s)", c.CaseID, v.Probe.ID, v.Verdict.Authorized, v.Verdict.Reason)
		}
		if !in {
			continue
		}
		granting := 0
		for _, r := range records {
			if d.Deny(ec, r, v.Probe.Request) == "" {
				granting++
				if r.Status() != "active" {
					t.Errorf("%s %s: authorized by %s record %s", c.CaseID, v.Probe.ID, r.Status(), r.AuthorizationID())
				}
			}
		}
		if granting != 1 {
			t.Errorf("%s %s: %d records authorize it, want 1", c.CaseID, v.Probe.ID, granting)
		}
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	a := ealtest.CheckSeededBytes(t, GenerateJSONL, 40, 42)
	prefix, err := GenerateJSONL(7, 42)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(a, prefix) {
		t.Error("the first 7 cases depend on how many cases are generated")
	}
	cases, err := Generate(40, 42)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range splitLines(t, a) {
		got, err := MarshalCaseLine(cases[i])
		if err != nil || !bytes.Equal(got, line) {
			t.Fatalf("case %d: Generate and GenerateJSONL disagree (err %v)", i, err)
		}
	}
	// Case ids carry the seed, so turn contents are what must differ between seeds.
	other, err := GenerateJSONL(40, 43)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(other), string(a[:200])) {
		t.Error("seed 43 repeats seed 42's first case")
	}
}

// TestGeneratePinnedBytes pins the output of one small run, so that a change of the generated
// corpus (a template edit, or a Go release changing math/rand/v2's algorithms, or a platform
// difference) is noticed. After a deliberate change, update the hash.
func TestGeneratePinnedBytes(t *testing.T) {
	const want = "10b34856f21b1a3aed3b586eaa814f3f66430be2ea24f77c183d88e3110208cc"
	data, err := GenerateJSONL(20, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := pyjson.SHA256Hex(data); got != want {
		t.Errorf("GenerateJSONL(20, 1) has sha256 %s, pinned %s: the generated corpus changed", got, want)
	}
}

func TestGenerateCoverage(t *testing.T) {
	cases, err := Generate(200, 7)
	if err != nil {
		t.Fatal(err)
	}
	lifecycles := map[string]int{}
	blocks := map[int]int{}
	bands := map[string]int{}
	patchDims := map[string]int{}
	for _, c := range cases {
		lifecycles[c.Benchmark.Lifecycle]++
		blocks[len(c.Blocks)]++
		bands[c.Benchmark.HistoryLengthBand]++
		if c.Benchmark.Lifecycle == "issue_patch" {
			patchDims[c.Tags[1]]++
		}
	}
	for _, l := range GenLifecycles {
		if lifecycles[l] == 0 {
			t.Errorf("no %s case in 200: %v", l, lifecycles)
		}
	}
	for n := 5; n <= 8; n++ {
		if blocks[n] == 0 {
			t.Errorf("no case with %d blocks in 200: %v", n, blocks)
		}
	}
	for _, b := range []string{"short", "medium", "long"} {
		if bands[b] == 0 {
			t.Errorf("no %s history in 200: %v", b, bands)
		}
	}
	for _, d := range genDimensions {
		if patchDims[d] == 0 {
			t.Errorf("no %s patch in 200: %v", d, patchDims)
		}
	}
}

// TestGeneratedOutOfScopeIsStale checks that the out-of-scope probes on a changed dimension
// sit inside the grant as it stood before the change, where a stale memory would allow them.
func TestGeneratedOutOfScopeIsStale(t *testing.T) {
	d := Domain{}
	cases, err := Generate(200, 11)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i, c := range cases {
		var stale []string
		switch c.Benchmark.Lifecycle {
		case "issue_patch":
			stale = []string{c.Tags[1]}
		case "issue_revoke":
			stale = genDimensions
		case "issue_revoke_replace":
			if !slices.Contains(c.Tags, "vendor_change") {
				stale = []string{"amount", "time"}
			}
		}
		if len(stale) == 0 {
			continue
		}
		change := -1
		for _, e := range c.Events {
			if e.EventType != "issue" {
				change = blockIndexOf(c, e.BlockID)
				break
			}
		}
		ec := ToEngine(c, i+1)
		for _, p := range c.ProbePairs {
			if !slices.Contains(stale, p.Dimension) {
				continue
			}
			v, err := engine.Oracle(d, ec, change-1, p.OutOfScope.Transaction)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Authorized {
				t.Errorf("%s %s: denied before the change (%s), want it inside the stale grant", c.CaseID, p.OutOfScope.Name, v.Reason)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("only %d stale probes checked", checked)
	}
}

func blockIndexOf(c *Case, blockID string) int {
	for _, b := range c.Blocks {
		if b.BlockID == blockID {
			return b.BlockIndex
		}
	}
	return -1
}

func TestGenerateRejectsNegativeCount(t *testing.T) {
	if _, err := Generate(-1, 1); err == nil {
		t.Error("Generate(-1) succeeded")
	}
	if data, err := GenerateJSONL(0, 1); err != nil || len(data) != 0 {
		t.Errorf("GenerateJSONL(0) = %q, %v", data, err)
	}
}
