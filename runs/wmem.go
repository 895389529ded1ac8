package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// importWriterMemories imports EAL-Bench's packaged writer memories (writer_memories.json:
// final typed memories of real writers, with no run directory). Each entry becomes a memory
// of a chain (case x condition x writer x writer run) of one run named after the file, placed
// at its case's final block and scored there like any imported memory. Entries need their
// corpus; entries of domains this ealscope does not know are skipped and reported.
func (s *Store) importWriterMemories(ctx context.Context, path string) (PathResult, error) {
	res := emptyResult(path, KindWriterMemories)
	data, err := rundir.ReadRegularFile(path, rundir.MaxInputFileBytes)
	if err != nil {
		return res, err
	}
	abs, _ := filepath.Abs(path)
	if err := rundir.CheckUTF8(abs, 1, data); err != nil {
		return res, err
	}
	tree, err := pyjson.DecodeTree(data)
	var ie *pyjson.InputError
	if errors.As(err, &ie) {
		return res, &rundir.VerifyError{File: abs, Line: ie.Line, Field: ie.Field, Msg: ie.Msg}
	}
	if err != nil {
		return res, &rundir.VerifyError{File: abs, Msg: fmt.Sprintf("invalid JSON: %v", err)}
	}
	top, ok := tree.(map[string]any)
	if !ok {
		return res, &rundir.VerifyError{File: abs, Msg: "expected an object with memories, writers and schema_version"}
	}
	if v, err := engine.Int("schema_version", top["schema_version"]); err != nil || v != 1 {
		msg := fmt.Sprintf("unknown writer-memories schema_version %v (ealscope reads the number 1)", top["schema_version"])
		if s, isString := top["schema_version"].(string); isString {
			// "1" and 1 print alike: say which one the file holds.
			msg = fmt.Sprintf("schema_version is the string %q; ealscope reads the number 1 (write it without quotes)", s)
		}
		return res, &rundir.VerifyError{File: abs, Field: "schema_version", Msg: msg}
	}
	list, ok := top["memories"].([]any)
	if !ok {
		return res, &rundir.VerifyError{File: abs, Field: "memories", Msg: "missing or not a list"}
	}
	writers, _ := top["writers"].(map[string]any)
	sha := pyjson.SHA256Hex(data)
	if id, ok, err := s.runExists(ctx, sha); err != nil {
		return res, err
	} else if ok {
		res.Status, res.RunID = StatusAlreadyImported, id
		res.Notes = append(res.Notes, "this writer-memories file (sha256 "+sha+") is already in the workspace: nothing changed")
		return res, nil
	}
	type entry struct {
		index int
		tree  map[string]any
	}
	byDomain := map[string][]entry{}
	skipped := map[string]int{}
	chainOf := map[string]int{}
	for i, item := range list {
		field := fmt.Sprintf("memories[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			return res, &rundir.VerifyError{File: abs, Field: field, Msg: "expected an object"}
		}
		for _, k := range []string{"domain_id", "corpus_version", "case_id", "condition_id", "architecture", "content_hash", "writer"} {
			if _, err := engine.NonEmptyStr(k, m[k]); err != nil {
				return res, &rundir.VerifyError{File: abs, Field: field + "." + k, Msg: "missing or not a non-empty string"}
			}
		}
		if _, err := engine.Int("", m["writer_run_id"]); err != nil {
			return res, &rundir.VerifyError{File: abs, Field: field + ".writer_run_id", Msg: "missing or not an integer"}
		}
		if m["payload"] == nil {
			return res, &rundir.VerifyError{File: abs, Field: field + ".payload", Msg: "missing"}
		}
		// One chain holds one writer memory: a second would be stored as another memory at
		// the same block and counted twice.
		chain := fmt.Sprint(m["domain_id"], "\x00", m["corpus_version"], "\x00", m["case_id"], "\x00", m["condition_id"], "\x00", m["writer"], "\x00", m["writer_run_id"])
		if first, dup := chainOf[chain]; dup {
			return res, &rundir.VerifyError{File: abs, Field: field, Msg: fmt.Sprintf("a second memory for the chain of memories[%d] (case %s, condition %s, writer %s, writer_run_id %v): one memory per chain", first, m["case_id"], m["condition_id"], m["writer"], m["writer_run_id"])}
		}
		chainOf[chain] = i
		if got := pyjson.MustContentHash(m["payload"]); got != m["content_hash"].(string) {
			return res, &rundir.VerifyError{File: abs, Field: field + ".content_hash", Msg: fmt.Sprintf("is %s but the payload hashes to %s", m["content_hash"], got)}
		}
		dom := m["domain_id"].(string)
		if _, err := domains.Get(dom); err != nil {
			skipped[dom]++
			continue
		}
		byDomain[dom] = append(byDomain[dom], entry{i, m})
	}
	for _, dom := range sortedKeys(boolSet(skipped)) {
		res.Notes = append(res.Notes, fmt.Sprintf("skipped %d entries of domain %s, which this ealscope does not support", skipped[dom], dom))
	}
	if len(byDomain) == 0 {
		return res, &rundir.VerifyError{File: abs, Field: "memories", Msg: "no entry of a supported domain (" + strings.Join(domains.IDs(), ", ") + ")"}
	}
	doms := sortedKeys(boolSet(byDomain))
	rows, err := s.inTx(ctx, func(w *txWriter) error {
		for _, dom := range doms {
			d, _ := domains.Get(dom)
			// Every entry's case must be in the workspace (or the built-in corpus).
			sets := map[string]*caseSet{}
			for _, e := range byDomain[dom] {
				version := e.tree["corpus_version"].(string)
				caseID := e.tree["case_id"].(string)
				if _, err := s.ensureCorpus(w, d, version); err != nil {
					return err
				}
				key := version + "\x00" + caseID
				if sets[key] == nil {
					cs, err := loadCases(w, d, version, []string{caseID})
					if err != nil {
						return err
					}
					sets[key] = cs
				}
				if sets[key].cases[caseID] == nil {
					return &rundir.VerifyError{File: abs, Field: fmt.Sprintf("memories[%d].corpus_version", e.index),
						Msg: fmt.Sprintf("case %s needs corpus %s/%s, which is not in the workspace: import it with --corpus FILE", caseID, dom, version)}
				}
			}
			// Rows in the memories.jsonl shape, so the run goes through the same derivation.
			var memRows []rundir.Row
			versions := map[string]bool{}
			for _, e := range byDomain[dom] {
				m := e.tree
				version := m["corpus_version"].(string)
				versions[version] = true
				c := sets[version+"\x00"+m["case_id"].(string)].cases[m["case_id"].(string)]
				writer := m["writer"].(string)
				prov := map[string]any{"target_id": writer}
				if wm, ok := writers[writer].(map[string]any); ok {
					for k, v := range wm {
						prov[k] = v
					}
				}
				memID, _ := m["variant_id"].(string)
				if memID == "" {
					memID = pyjson.StableID24("mem", dom, m["case_id"].(string), m["condition_id"].(string), writer, fmt.Sprint(m["writer_run_id"]), m["content_hash"].(string))
				}
				row := map[string]any{
					"memory_id": memID, "chain_id": "", "domain_id": dom, "case_id": m["case_id"], "condition_id": m["condition_id"],
					"block_index": json.Number(fmt.Sprint(c.LastBlock())), "writer_run_id": m["writer_run_id"], "writer_seed": m["writer_seed"], "writer": prov,
					"architecture": m["architecture"], "origin": "writer", "content_hash": m["content_hash"], "payload": m["payload"],
					"faithful_comparison": m["faithful_comparison"], "variant_id": m["variant_id"], "corpus_version": version,
				}
				memRows = append(memRows, rundir.Row{Line: e.index + 1, Tree: row})
			}
			manifest := map[string]any{}
			for k, v := range top {
				if k != "memories" {
					manifest[k] = v
				}
			}
			manifest["source_file"] = abs
			vs := sortedKeys(versions)
			run := &rundir.Run{Dir: abs, Manifest: manifest, Status: rundir.StatusCompleted, Files: map[string][]rundir.Row{rundir.Memories: memRows}}
			identity := sha
			if len(doms) > 1 {
				identity = pyjson.SHA256Hex([]byte(sha + "\x00" + dom))
			}
			info := runInfo{kind: KindWriterMemories, manifestSHA: identity, manifest: manifest, status: rundir.StatusCompleted, importedFrom: abs,
				domainID: dom, study: "writer_memories", corpusVersion: strings.Join(vs, "+"), counts: map[string]int{rundir.Memories: len(memRows)}, verificationOK: "verified"}
			if len(vs) == 1 {
				info.corpusVersion = vs[0]
			}
			if len(vs) > 1 {
				info.corpusVersion = "" // cases resolve by id across the domain's versions
			}
			out, err := s.writeRun(w, info, run)
			if err != nil {
				return err
			}
			res.MissingCorpora = append(res.MissingCorpora, out.missing...)
			res.Notes = append(res.Notes, out.notes...)
			if res.RunID == "" {
				res.RunID = runIDOf(identity)
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	return res.imported(rows), nil
}

func boolSet[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
