package cybersecurity

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
)

// TestTypedParserAgreesWithEALBench runs the typed memories of the shared cybersecurity case
// recorded in source_authority_gate__shared_cases.json (faithful memories at every block, the
// preservation payloads, a real writer memory and hand-built edge memories): the parser must
// refuse exactly the memories EAL-Bench's parse_typed refused, and normalise the accepted ones
// to the state EAL-Bench re-serialised (whitespace stripped).
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
	n := 0
	for _, row := range append(doc.Rows, doc.EdgeRows...) {
		if row.DomainID != DomainID {
			continue
		}
		n++
		records, err := d.ParseTyped(rawTree(t, row.Memory))
		refused := len(row.Error) > 0 && string(row.Error) != "null"
		if refused != (err != nil) {
			t.Errorf("%s: our parser error %v, EAL-Bench refused=%v", row.MemoryRef, err, refused)
			continue
		}
		if err != nil {
			continue
		}
		if row.Result.RemovedRecordCount == 0 {
			if got, want := canon(t, d.TypedPayload(records)), canon(t, rawTree(t, row.Result.GatedState)); got != want {
				t.Errorf("%s: normalised state\n got %s\nwant %s", row.MemoryRef, got, want)
			}
		}
		if row.RowKind == "faithful_per_block" {
			ledger, err := d.Replay(c, *row.Through)
			if err != nil {
				t.Fatal(err)
			}
			if canon(t, d.TypedPayload(ledger)) != canon(t, rawTree(t, row.Memory)) {
				t.Errorf("%s: faithful typed memory differs from EAL-Bench's", row.MemoryRef)
			}
		}
		if row.RowKind == "preservation" {
			ledger, _ := d.Replay(c, -1+len(c.Blocks))
			p := engine.Fidelity(d, c, c.LastBlock(), ledger, records)
			want := map[string]string{
				"preservation:faithful":                 "",
				"preservation:dropped_record":           "missing_record",
				"preservation:widened_approved_actions": "broadening",
				"preservation:contradicted_incident_id": "contradiction",
			}
			if w, ok := want[row.MemoryRef]; ok {
				var errs []string
				for e := range p.Errors {
					errs = append(errs, e)
				}
				if strings.Join(errs, ",") != w {
					t.Errorf("%s: fidelity errors %v, want [%s]", row.MemoryRef, p.Errors, w)
				}
			}
		}
	}
	if n != 44 {
		t.Errorf("%d cybersecurity rows, want 44", n)
	}
}

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
