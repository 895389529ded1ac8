package ealtest

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/ealref"
)

// GateRows are the domain's rows and edge rows of the gate's shared cases, in file order.
func GateRows(t testing.TB, domainID string) []ealref.GateRow {
	t.Helper()
	doc, err := ealref.ReadGateCases(filepath.Join(Dir(t), GateCasesFile))
	if err != nil {
		t.Fatal(err)
	}
	var out []ealref.GateRow
	for _, row := range doc.All() {
		if row.DomainID == domainID {
			out = append(out, row)
		}
	}
	return out
}

// gateResult is what CheckTypedParser reads of a row's result (docs/FORMATS.md 8.1).
type gateResult struct {
	RemovedRecordCount int             `json:"removed_record_count"`
	GatedState         json.RawMessage `json:"gated_state"`
}

// recipeFidelity are the fidelity errors of the preservation payloads every domain's shared
// case has (sorted, comma-joined; "" for none): the faithful payload is exact and the one
// that drops a record misses it.
var recipeFidelity = map[string]string{
	"preservation:faithful":       "",
	"preservation:dropped_record": "missing_record",
}

// CheckTypedParser runs every typed memory of the domain's shared case in the gate's shared
// cases: the parser must refuse exactly the memories EAL-Bench's parse_typed refused,
// normalise the accepted ones to the state EAL-Bench re-serialised, reproduce the faithful
// memory at every block, and give the preservation payloads of recipeFidelity and of the
// domain's own fidelity the fidelity errors listed there (sorted, comma-joined; "" for none).
// Every payload named must be among the rows.
func CheckTypedParser(t *testing.T, d engine.Domain, c *engine.Case, rows int, domainFidelity map[string]string) {
	t.Helper()
	fidelity := maps.Clone(recipeFidelity)
	maps.Copy(fidelity, domainFidelity)
	seen := map[string]bool{}
	final, err := d.Replay(c, c.LastBlock())
	if err != nil {
		t.Fatal(err)
	}
	got := GateRows(t, d.ID())
	for _, row := range got {
		records, err := d.ParseTyped(Tree(t, row.Memory))
		refused := row.Refused()
		if refused != (err != nil) {
			t.Errorf("%s: our parser error %v, EAL-Bench refused=%v", row.MemoryRef, err, refused)
			continue
		}
		if err != nil {
			continue
		}
		var result gateResult
		if err := json.Unmarshal(row.Result, &result); err != nil {
			t.Fatalf("%s: result: %v", row.MemoryRef, err)
		}
		if result.RemovedRecordCount == 0 {
			if got, want := Canon(t, d.TypedPayload(records)), Canon(t, Tree(t, result.GatedState)); got != want {
				t.Errorf("%s: normalised state\n got %s\nwant %s", row.MemoryRef, got, want)
			}
		}
		if row.RowKind == "faithful_per_block" {
			ledger, err := d.Replay(c, *row.Through)
			if err != nil {
				t.Fatal(err)
			}
			if Canon(t, d.TypedPayload(ledger)) != Canon(t, Tree(t, row.Memory)) {
				t.Errorf("%s: faithful typed memory differs from EAL-Bench's", row.MemoryRef)
			}
		}
		if w, ok := fidelity[row.MemoryRef]; ok {
			seen[row.MemoryRef] = true
			p := engine.Fidelity(d, c, c.LastBlock(), final, records)
			var errs []string
			for e := range p.Errors {
				errs = append(errs, e)
			}
			sort.Strings(errs)
			if strings.Join(errs, ",") != w {
				t.Errorf("%s: fidelity errors %v, want [%s]", row.MemoryRef, p.Errors, w)
			}
		}
	}
	if len(got) != rows {
		t.Errorf("%d %s rows, want %d", len(got), d.ID(), rows)
	}
	for ref := range fidelity {
		if !seen[ref] {
			t.Errorf("no accepted %s row %s", d.ID(), ref)
		}
	}
}
