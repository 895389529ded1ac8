package finance

import (
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

func builtinTree(t *testing.T) map[string]any {
	t.Helper()
	_, data := Domain{}.BuiltinCorpus()
	tree, err := pyjson.DecodeTree(data)
	if err != nil {
		t.Fatal(err)
	}
	return tree.(map[string]any)
}

func encode(t *testing.T, v any) []byte {
	t.Helper()
	return []byte(pyjson.MustCanonicalJSON(v))
}

func firstCase(m map[string]any) map[string]any { return m["cases"].([]any)[0].(map[string]any) }

// TestCorpusErrors: the reader refuses what EAL-Bench's loader or its own strictness refuses,
// with the file, the case and the field in the message; other cases still parse.
func TestCorpusErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(m map[string]any)
		want []string
	}{
		{"older schema", func(m map[string]any) { m["schema_version"] = "finance_case_corpus_v1" }, []string{"f.json", `"finance_case_corpus_v1"`, "known: finance_redesign_corpus_v1"}},
		{"missing header key", func(m map[string]any) { delete(m, "release_id") }, []string{"f.json", "release_id"}},
		{"unknown case key", func(m map[string]any) { firstCase(m)["tags"] = []any{} }, []string{"f.json", "cases[0]", "case fin_ealscope_builtin_harbor_liability_hedge", "cases[0].tags"}},
		{"turn speaker", func(m map[string]any) {
			firstCase(m)["blocks"].([]any)[0].(map[string]any)["turns"].([]any)[0].(map[string]any)["speaker_id"] = 7
		}, []string{"cases[0].blocks[0].turns[0].speaker_id"}},
		{"event issuer", func(m map[string]any) {
			firstCase(m)["events"].([]any)[0].(map[string]any)["issuer"] = "execution_trader"
		}, []string{"cases[0].events[0].issuer"}},
		{"event source not the officer", func(m map[string]any) {
			c := firstCase(m)
			e := c["events"].([]any)[0].(map[string]any)
			turns := c["blocks"].([]any)[1].(map[string]any)["turns"].([]any)
			id := turns[0].(map[string]any)["turn_id"]
			e["source_turn_id"] = id
			e["record"].(map[string]any)["source_turn_ids"] = []any{id}
		}, []string{"cases[0].events[0].source_turn_id", "not by portfolio_mandate_officer"}},
		{"null scope in an issue", func(m map[string]any) {
			firstCase(m)["events"].([]any)[0].(map[string]any)["record"].(map[string]any)["scope"].(map[string]any)["sides"] = nil
		}, []string{"cases[0].events[0].record.scope.sides"}},
		{"padded scope item", func(m map[string]any) {
			firstCase(m)["events"].([]any)[0].(map[string]any)["record"].(map[string]any)["scope"].(map[string]any)["sides"] = []any{" buy"}
		}, []string{"cases[0].events[0].scope.sides[0]"}},
		{"ledger not a valid state", func(m map[string]any) {
			firstCase(m)["events"].([]any)[0].(map[string]any)["record"].(map[string]any)["scope"].(map[string]any)["max_quantity"] = pyjsonNumber("0")
		}, []string{"cases[0].events", "after block 1", "max_quantity"}},
		{"dimension", func(m map[string]any) {
			for _, p := range firstCase(m)["probes"].([]any) {
				if p.(map[string]any)["dimension"] == "side" {
					p.(map[string]any)["dimension"] = "amount"
				}
			}
		}, []string{"dimension", `"amount" is not a finance dimension`}},
		{"request quantity", func(m map[string]any) {
			firstCase(m)["probes"].([]any)[0].(map[string]any)["request"].(map[string]any)["quantity"] = "700"
		}, []string{"cases[0].probes[0].request.quantity"}},
		{"preferred pair", func(m map[string]any) {
			c := firstCase(m)
			pref := c["preferred_requests"].(map[string]any)
			for k, v := range pref {
				pref["pair_nowhere"] = v
				delete(pref, k)
				break
			}
		}, []string{"cases[0].preferred_requests.pair_nowhere"}},
		{"corpus version", func(m map[string]any) { firstCase(m)["metadata"].(map[string]any)["corpus_version"] = "benchmark_v1" }, []string{"cases[0].metadata.corpus_version"}},
	}
	for _, tc := range cases {
		m := builtinTree(t)
		tc.edit(m)
		_, err := Domain{}.ParseCorpus("f.json", encode(t, m))
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
	}
	// One bad case does not hide the others.
	m := builtinTree(t)
	firstCase(m)["family"] = ""
	each := Domain{}.ParseEach("f.json", encode(t, m))
	if len(each) != 6 || each[0].Err == nil || each[0].CaseID != "fin_ealscope_builtin_harbor_liability_hedge" {
		t.Fatalf("first entry %+v", each[0])
	}
	for _, e := range each[1:] {
		if e.Err != nil || e.Case == nil {
			t.Errorf("case %s: %v", e.CaseID, e.Err)
		}
	}
	// Duplicate case ids.
	m = builtinTree(t)
	m["cases"] = append(m["cases"].([]any), firstCase(builtinTree(t)))
	each = Domain{}.ParseEach("f.json", encode(t, m))
	if last := each[len(each)-1]; last.Err == nil || !strings.Contains(last.Err.Error(), "duplicate of cases[0]") {
		t.Errorf("duplicate: %v", last.Err)
	}
	if each := (Domain{}).ParseEach("f.json", []byte("{not json")); len(each) != 1 || each[0].Err == nil {
		t.Errorf("broken JSON: %+v", each)
	}
}

func pyjsonNumber(s string) any {
	v, _ := pyjson.DecodeTree([]byte(s))
	return v
}

// TestCaseDocument: one case written alone reads back as the same case (for per-case storage).
func TestCaseDocument(t *testing.T) {
	d := Domain{}
	cases, err := engine.BuiltinCases(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		doc, err := CaseDocument(c)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(doc), "\n") {
			t.Fatalf("%s: document spans lines", c.ID)
		}
		back, err := d.ParseCorpus("doc", doc)
		if err != nil || len(back) != 1 {
			t.Fatalf("%s: %v", c.ID, err)
		}
		if canonCase(t, back[0]) != canonCase(t, c) {
			t.Errorf("%s does not round-trip", c.ID)
		}
	}
}

func canonCase(t *testing.T, c *engine.Case) string {
	t.Helper()
	tree, err := pyjson.Retree(c.Source.(*Case).Tree())
	if err != nil {
		t.Fatal(err)
	}
	return pyjson.MustCanonicalJSON(tree)
}

// TestCaseFileRole: the workspace's per-case storage reads back through the domain.
func TestCaseFileRole(t *testing.T) {
	var cw engine.CaseFileWriter = Domain{}
	cases, err := engine.BuiltinCases(Domain{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := cw.CaseFile(cases[1])
	if err != nil {
		t.Fatal(err)
	}
	back, err := Domain{}.ParseCorpus("workspace", doc)
	if err != nil || len(back) != 1 || back[0].ID != cases[1].ID {
		t.Fatalf("%v %v", back, err)
	}
}
