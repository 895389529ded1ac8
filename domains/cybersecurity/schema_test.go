package cybersecurity

import (
	"sort"
	"strings"
	"testing"
)

// TestSchemaMatchesPayload: the declared record schema names exactly the leaves of a typed
// payload record, in the typed parser's key set.
func TestSchemaMatchesPayload(t *testing.T) {
	d := Domain{}
	c, _ := builtinFirst(t)
	ledger, err := d.Replay(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec := d.TypedPayload(ledger)["authorizations"].([]any)[0].(map[string]any)
	var leaves []string
	for k, v := range rec {
		if m, ok := v.(map[string]any); ok {
			for kk := range m {
				leaves = append(leaves, k+"."+kk)
			}
			continue
		}
		leaves = append(leaves, k)
	}
	var paths []string
	for _, f := range d.Schema().Fields {
		paths = append(paths, f.Path)
	}
	sort.Strings(leaves)
	sorted := append([]string{}, paths...)
	sort.Strings(sorted)
	if strings.Join(leaves, ",") != strings.Join(sorted, ",") {
		t.Errorf("schema paths %v, payload leaves %v", sorted, leaves)
	}
	for _, f := range d.Schema().Fields {
		if strings.HasPrefix(f.Path, "scope.") != f.Scope {
			t.Errorf("%s: scope flag %v", f.Path, f.Scope)
		}
	}
}
