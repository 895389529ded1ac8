package finance

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
)

type gateRow struct {
	RowKind   string          `json:"row_kind"`
	DomainID  string          `json:"domain_id"`
	MemoryRef string          `json:"memory_ref"`
	Through   *int            `json:"through_block_index"`
	Memory    json.RawMessage `json:"memory"`
	Error     json.RawMessage `json:"error"`
	Result    struct {
		RemovedRecordCount int             `json:"removed_record_count"`
		GatedState         json.RawMessage `json:"gated_state"`
	} `json:"result"`
}

// TestTypedParserAgreesWithEALBench runs every typed memory of the shared finance case in
// source_authority_gate__shared_cases.json (faithful memories at every block, the
// preservation payloads, the real writer memories and the hand-built edge memories): the
// parser refuses exactly what EAL-Bench's parse_typed refused, normalises the rest to the
// state EAL-Bench re-serialised, and the preservation payloads get the fidelity classes their
// recipes imply (EAL-Bench's expected_fidelity rows are not in the shared data).
func TestTypedParserAgreesWithEALBench(t *testing.T) {
	d := Domain{}
	c := sharedCase(t)
	var doc struct {
		Rows     []gateRow `json:"rows"`
		EdgeRows []gateRow `json:"edge_rows"`
	}
	if err := json.Unmarshal(readEAL(t, "source_authority_gate__shared_cases.json"), &doc); err != nil {
		t.Fatal(err)
	}
	final, err := d.Replay(c, c.LastBlock())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range append(doc.Rows, doc.EdgeRows...) {
		if row.DomainID != DomainID {
			continue
		}
		n++
		records, err := d.ParseTyped(tree(t, row.Memory))
		refused := len(row.Error) > 0 && string(row.Error) != "null"
		if refused != (err != nil) {
			t.Errorf("%s: our parser error %v, EAL-Bench refused=%v", row.MemoryRef, err, refused)
			continue
		}
		if err != nil {
			continue
		}
		if row.Result.RemovedRecordCount == 0 {
			if got, want := canon(d.TypedPayload(records)), canon(tree(t, row.Result.GatedState)); got != want {
				t.Errorf("%s: normalised state\n got %s\nwant %s", row.MemoryRef, got, want)
			}
		}
		if row.RowKind == "faithful_per_block" {
			ledger, err := d.Replay(c, *row.Through)
			if err != nil {
				t.Fatal(err)
			}
			if canon(d.TypedPayload(ledger)) != canon(tree(t, row.Memory)) {
				t.Errorf("%s: faithful typed memory differs from EAL-Bench's", row.MemoryRef)
			}
		}
		want := map[string]string{
			"preservation:faithful":                       "",
			"preservation:dropped_record":                 "missing_record",
			"preservation:widened_max_limit_price_micros": "broadening",
			"preservation:contradicted_account_id":        "contradiction",
			"preservation:stale_state_block_1":            "broadening,contradiction",
		}
		if w, ok := want[row.MemoryRef]; ok {
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
	if n != 66 {
		t.Errorf("%d finance rows, want 66", n)
	}
}
