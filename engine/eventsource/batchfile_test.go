package eventsource_test

import (
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine/eventsource"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// TestParseBatchFileErrors: a bad batch document is refused at the first bad field, named by
// its path; a good one is read field by field.
func TestParseBatchFileErrors(t *testing.T) {
	const good = `{"block_index": 2, "records_before": {}, "input": {"arguments": {"events": []},
		"visible_source_ids": ["t1"], "addressable_authorization_ids": [], "logical_update_id": "u", "capacity_tokens": 10}}`
	for _, tc := range []struct {
		name  string
		edits []string // pairs: text of the good document, its replacement
		want  string
	}{
		{"good", nil, ""},
		{"negative block", []string{`"block_index": 2`, `"block_index": -1`}, "field block_index: must be >= 0, got -1"},
		{"visible not a list", []string{`["t1"]`, `"t1"`}, "field input.visible_source_ids: expected a list"},
		{"first bad field wins", []string{`"addressable_authorization_ids": []`, `"addressable_authorization_ids": [1]`, `"capacity_tokens": 10`, `"capacity_tokens": -3`},
			"field input.addressable_authorization_ids[0]: expected a string"},
		{"blank update id", []string{`"logical_update_id": "u"`, `"logical_update_id": " "`}, "field input.logical_update_id: must be a non-empty string"},
		{"negative capacity", []string{`"capacity_tokens": 10`, `"capacity_tokens": -3`}, "field input.capacity_tokens: must be >= 0, got -3"},
		{"unknown input key", []string{`"capacity_tokens": 10`, `"capacity_tokens": 10, "extra": 1`}, "field input.extra: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := good
			for i := 0; i < len(tc.edits); i += 2 {
				doc = strings.Replace(doc, tc.edits[i], tc.edits[i+1], 1)
			}
			tree, err := pyjson.DecodeTree([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			bf, err := eventsource.ParseBatchFile(tree)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			in := bf.Input
			if bf.BlockIndex != 2 || len(in.VisibleSourceIDs) != 1 || in.VisibleSourceIDs[0] != "t1" || in.AddressableAuthorizationIDs == nil ||
				in.LogicalUpdateID != "u" || in.CapacityTokens != 10 {
				t.Errorf("read %+v", bf)
			}
		})
	}
}
