package cybersecurity

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
)

var (
	firstOnce sync.Once
	firstJSON string
	firstErr  error
)

// mutatedCorpus encodes the first built-in case after mutate has edited its tree.
func mutatedCorpus(t *testing.T, mutate func(c map[string]any)) []byte {
	t.Helper()
	firstOnce.Do(func() {
		name, data := Domain{}.BuiltinCorpus()
		cases, _, err := ParseCorpus(name, data)
		if err != nil {
			firstErr = err
			return
		}
		firstJSON, firstErr = pyjson.CanonicalJSON(cases[0].Tree())
	})
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	tree, err := pyjson.DecodeTree([]byte(firstJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := tree.(map[string]any)
	mutate(c)
	b, err := pyjson.DumpPy(map[string]any{"domain_id": DomainID, "corpus_version": BuiltinCorpusVersion, "cases": []any{c}}, pyjson.Indented)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func num(n int) json.Number { return json.Number(strconv.Itoa(n)) }

func obj(v any) map[string]any { return v.(map[string]any) }
func list(v any) []any         { return v.([]any) }

// eventIndex finds the first event of a type in a given block.
func eventIndex(c map[string]any, block int, typ string) int {
	for i, e := range list(c["events"]) {
		m := obj(e)
		if m["event_type"] == typ && m["block_index"] == num(block) {
			return i
		}
	}
	return -1
}

func TestReaderErrors(t *testing.T) {
	const id = "ealscope_cyber_identity_provider"
	cases := []struct {
		name   string
		mutate func(c map[string]any)
		want   string
	}{
		{"unknown case key", func(c map[string]any) { c["colour"] = "red" }, "field colour"},
		{"missing case key", func(c map[string]any) { delete(c, "system_name") }, "field system_name: required key is missing"},
		{"wrong type", func(c map[string]any) { c["organization"] = num(3) }, "field organization"},
		{"block index out of order", func(c map[string]any) { obj(list(c["blocks"])[2])["block_index"] = num(5) }, "field blocks[2].block_index"},
		{"unknown turn key", func(c map[string]any) { obj(list(obj(list(c["blocks"])[1])["turns"])[0])["mood"] = "calm" }, "field blocks[1].turns[0].mood"},
		{"event cites a turn of another block", func(c map[string]any) {
			i := eventIndex(c, 1, "issue")
			obj(list(c["events"])[i])["source_turn_id"] = obj(list(obj(list(c["blocks"])[0])["turns"])[0])["turn_id"]
		}, "is not a turn of block 1"},
		{"event issuer is not the speaker", func(c map[string]any) {
			i := eventIndex(c, 1, "issue")
			b1 := list(obj(list(c["blocks"])[1])["turns"])
			for _, tu := range b1 {
				if obj(tu)["speaker_id"] != Issuer {
					e := obj(list(c["events"])[i])
					e["source_turn_id"] = obj(tu)["turn_id"]
					obj(e["record"])["source_turn_ids"] = []any{obj(tu)["turn_id"]}
					return
				}
			}
		}, "not by the event's issuer"},
		{"scope list of numbers", func(c map[string]any) {
			i := eventIndex(c, 0, "issue")
			obj(obj(obj(list(c["events"])[i])["record"])["scope"])["asset_ids"] = []any{num(1)}
		}, "record.scope.asset_ids[0]"},
		{"unknown patch key", func(c map[string]any) {
			i := eventIndex(c, 2, "patch")
			obj(list(c["events"])[i])["changes"] = map[string]any{"owner": "x"}
		}, "changes.owner"},
		{"unseparated pair", func(c map[string]any) {
			// The out-of-scope late-narrowing probe asks for the in-scope asset: the oracle
			// now authorizes both and the pair no longer differs in its field.
			p := obj(list(c["probes"])[1])
			in := obj(obj(list(c["probes"])[0])["request"])
			obj(p["request"])["asset_id"] = in["asset_id"]
		}, "probes[0].request: pair pair_" + id + "_late_narrowing must differ only in asset_id"},
		{"oracle does not separate", func(c map[string]any) {
			// Both requests of the time pair moved into the final window: they still differ in
			// requested_at only, but the out-of-scope one is authorized.
			p := obj(list(c["probes"])[7])
			obj(p["request"])["requested_at"] = obj(obj(list(c["probes"])[6])["request"])["requested_at"].(string)[:11] + "17:00:00Z"
		}, "probes[7]: probe probe_" + id + "_time_shift_outside (out_of_scope) must be denied at the final block (oracle: authorized:"},
		{"unpaired probe", func(c map[string]any) { c["probes"] = list(c["probes"])[:7] }, "needs one in_scope and one out_of_scope probe"},
		{"unknown action", func(c map[string]any) {
			obj(obj(list(c["probes"])[0])["request"])["response_action"] = "reboot_everything"
		}, "probes[0].request.response_action"},
		{"naive request time", func(c map[string]any) {
			obj(obj(list(c["probes"])[0])["request"])["requested_at"] = "2026-01-01T00:00:00"
		}, "has no UTC offset"},
		{"preferred for an unknown pair", func(c map[string]any) { obj(c["preferred_requests"])["pair_x"] = obj(c["preferred_request"]) }, "preferred_requests.pair_x"},
		{"metadata version", func(c map[string]any) { obj(c["metadata"])["corpus_version"] = "other" }, "metadata.corpus_version"},
	}
	for _, c := range cases {
		data := mutatedCorpus(t, c.mutate)
		_, _, err := ParseCorpus("corpus.json", data)
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "corpus.json:3: case "+id+" (cases[0]): ") || !strings.Contains(msg, c.want) {
			t.Errorf("%s:\n got %s\nwant it to name corpus.json:3, case %s and %q", c.name, msg, id, c.want)
		}
		// ParseEach reports the same error for the case.
		each := Domain{}.ParseEach("corpus.json", data)
		if len(each) != 1 || each[0].Err == nil || each[0].CaseID != id || each[0].Line != 3 {
			t.Errorf("%s: ParseEach %+v", c.name, each)
		}
	}
}

func TestReaderFileErrors(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"not json", "nope", "f.json:1: not JSON"},
		{"list", "[]", "f.json:1: the corpus must be a JSON object"},
		{"other domain", `{"domain_id":"finance","corpus_version":"v","cases":[]}`, "f.json:1: field domain_id: this is not a cybersecurity corpus"},
		{"extra key", `{"domain_id":"cybersecurity","corpus_version":"v","cases":[],"x":1}`, "f.json:1: field x"},
		{"no cases", `{"domain_id":"cybersecurity","corpus_version":"v","cases":[]}`, "the corpus has no cases"},
		{"cases not a list", `{"domain_id":"cybersecurity","corpus_version":"v","cases":{}}`, "field cases: expected a list"},
		{"trailing data", "{\"domain_id\":\"cybersecurity\",\"corpus_version\":\"v\",\"cases\":[]}\n{}", "f.json:2: data after the corpus object"},
		{"case not an object", "{\"domain_id\":\"cybersecurity\",\n\"corpus_version\":\"v\",\n\"cases\":[\n 7]}", "f.json:4: case  (cases[0]): expected an object"},
	} {
		_, _, err := ParseCorpus("f.json", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// One bad case does not hide the good one in ParseEach, and a duplicate id is named.
	good := mutatedCorpus(t, func(map[string]any) {})
	doubled := strings.Replace(string(good), "\"cases\": [\n", "\"cases\": [\n    7,\n", 1)
	each := Domain{}.ParseEach("f.json", []byte(doubled))
	if len(each) != 2 || each[0].Err == nil || each[1].Err != nil || each[1].Case == nil {
		t.Fatalf("ParseEach: %+v", each)
	}
}
