package main

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// TestGateCommand runs `ealscope gate` on a generated corpus of every domain: the faithful
// final memory with one record re-cited to a turn of a principal unable to grant. --json prints
// the result with that record removed for source_not_authority_capable and the others kept;
// the summary says the same; a memory the parser refuses (a duplicated citation) exits 1
// naming the memory file.
func TestGateCommand(t *testing.T) {
	for _, id := range domains.IDs() {
		t.Run(id, func(t *testing.T) {
			dir := t.TempDir()
			data := []byte(runOK(t, "gen", "--domain", id, "--cases", "1", "--seed", "7"))
			corpus := writeFile(t, filepath.Join(dir, "corpus"), data)
			d, _ := domains.Get(id)
			rules := d.(engine.SourceAuthorityRules)
			cases, err := d.ParseCorpus(corpus, data)
			if err != nil {
				t.Fatal(err)
			}
			c := cases[0]
			ledger, err := d.Replay(c, c.LastBlock())
			if err != nil || len(ledger) == 0 {
				t.Fatalf("replay: %v (%d records)", err, len(ledger))
			}
			var plain string
			for _, b := range c.Blocks {
				for _, turn := range b.Turns {
					if plain == "" && !slices.Contains(rules.AuthorityCapablePrincipals(c), rules.TurnPrincipal(turn)) {
						plain = turn.ID
					}
				}
			}
			tree, err := pyjson.Retree(d.TypedPayload(ledger))
			if err != nil {
				t.Fatal(err)
			}
			// The memory: the final ledger, plus a copy of its first record under a new id, and
			// the first record re-cited to the non-capable turn.
			m := tree.(map[string]any)
			rows := m["authorizations"].([]any)
			first := rows[0].(map[string]any)
			kept := map[string]any{}
			for k, v := range first {
				kept[k] = v
			}
			kept["authorization_id"] = ledger[0].AuthorizationID() + "_copy"
			m["authorizations"] = append(rows, kept)
			setCitations(first, plain)
			n := len(ledger) + 1
			memory := filepath.Join(dir, "memory.json")
			writeTree(t, memory, tree)

			gate := []string{"gate", "--corpus", corpus, "--case", c.ID, "--memory", memory}
			var res struct {
				SchemaVersion string `json:"schema_version"`
				Through       *int   `json:"through_block_index"`
				Input         int    `json:"input_record_count"`
				Retained      int    `json:"retained_record_count"`
				Removed       int    `json:"removed_record_count"`
				Decisions     []struct {
					Passed bool   `json:"passed"`
					Reason string `json:"reason"`
				} `json:"decisions"`
			}
			runJSON(t, &res, append(gate, "--json")...)
			if res.SchemaVersion != "cited_source_authority_gate_v1" || res.Through == nil || *res.Through != c.LastBlock() ||
				res.Input != n || res.Removed != 1 || res.Retained != n-1 {
				t.Errorf("result %+v", res)
			}
			if res.Decisions[0].Passed || res.Decisions[0].Reason != "source_not_authority_capable" || !res.Decisions[n-1].Passed {
				t.Errorf("decisions %+v", res.Decisions)
			}

			if summary := strings.Join(strings.Fields(runOK(t, gate...)), " "); !strings.Contains(summary, "visible: "+strconv.Itoa(n)+" records, "+strconv.Itoa(n-1)+" kept, 1 removed") ||
				!strings.Contains(summary, "removed "+ledger[0].AuthorizationID()+" source_not_authority_capable") ||
				!strings.Contains(summary, "kept "+ledger[0].AuthorizationID()+"_copy all_cited_sources_authority_capable") {
				t.Errorf("summary:\n%s", summary)
			}
			if summary := strings.Join(strings.Fields(runOK(t, append(gate, "--block=-1")...)), " "); !strings.Contains(summary, "blocks <= -1 visible: "+strconv.Itoa(n)+" records, 0 kept") ||
				!strings.Contains(summary, "removed "+ledger[0].AuthorizationID()+" future_provenance") {
				t.Errorf("summary at block -1:\n%s", summary)
			}

			setCitations(first, plain, plain)
			writeTree(t, memory, tree)
			if out, errs, code := runCLI(t, append(gate, "--json")...); code != 1 ||
				!strings.Contains(errs, memory) || !strings.Contains(errs, "source_turn_ids") || out != "" {
				t.Errorf("refused memory: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			if _, _, code := runCLI(t, append(gate, "--block", "0", "--all-turns")...); code != 1 {
				t.Errorf("--block with --all-turns: exit %d", code)
			}
		})
	}
}

// setCitations writes the citations as the domain's typed memory holds them (finance: one
// " | "-joined string; the others: a list).
func setCitations(record map[string]any, ids ...string) {
	if _, joined := record["source_turn_ids"].(string); joined {
		record["source_turn_ids"] = strings.Join(ids, " | ")
		return
	}
	items := make([]any, len(ids))
	for i, id := range ids {
		items[i] = id
	}
	record["source_turn_ids"] = items
}

func writeTree(t *testing.T, path string, tree any) {
	t.Helper()
	b, err := pyjson.DumpPy(tree, pyjson.Canonical)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b)
}

// TestGateCommandBadMemoryFile: a memory file that is not JSON exits 1 naming the file and
// the line.
func TestGateCommandBadMemoryFile(t *testing.T) {
	_, cases, err := domains.BuiltinCases("procurement")
	if err != nil {
		t.Fatal(err)
	}
	memory := writeFile(t, filepath.Join(t.TempDir(), "broken.json"), []byte("{\n  \"schema_version\": \"3\",\n  \"authorizations\": [\n}"))
	_, errs, code := runCLI(t, "gate", "--builtin", "--domain", "procurement", "--case", cases[0].ID, "--memory", memory)
	if code != 1 || !strings.Contains(errs, memory) || !strings.Contains(errs, "line 4") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
