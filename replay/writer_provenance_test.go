package replay

import (
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// TestWriterProvenance: both model writers record the forced-tool target EAL-Bench records;
// only the event writer states its tool_choice.
func TestWriterProvenance(t *testing.T) {
	c := NewModelClient(Model{Name: "w", Model: "m-1", MaxTokens: 900}, RetryPolicy{}, nil)
	common := `"max_tokens":900,"required_capabilities":["forced_tool_choice","native_tools","seed"],"seed":5,"temperature":1.0`
	for _, tc := range []struct {
		name string
		got  any
		want string
	}{
		{"patchdoc", NewModelWriter(c).provenance(5).EffectiveParameters, "{" + common + "}"},
		{"event", NewModelEventWriter(c).provenance(5).EffectiveParameters,
			"{" + common + `,"tool_choice":{"function":{"name":"record_authorization_events"},"type":"function"}}`},
	} {
		if got := pyjson.MustCanonicalJSON(tc.got); got != tc.want {
			t.Errorf("%s: %s\nwant %s", tc.name, got, tc.want)
		}
	}
	if p := NewModelWriter(c).provenance(5); p.TargetID != "w" || p.RequestedModel != "m-1" || p.ResolvedModel != "m-1" || p.Provider != "openai_compatible" {
		t.Errorf("target %+v", p)
	}
}
