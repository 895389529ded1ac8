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
	f, err := readWriterMemories(path)
	if err != nil {
		return res, err
	}
	if id, ok, err := s.runExists(ctx, f.sha); err != nil {
		return res, err
	} else if ok {
		res.Status, res.RunID = StatusAlreadyImported, id
		res.Notes = append(res.Notes, "this writer-memories file (sha256 "+f.sha+") is already in the workspace: nothing changed")
		return res, nil
	}
	byDomain, skipped, err := f.entriesByDomain()
	if err != nil {
		return res, err
	}
	for _, dom := range engine.SortedSet(boolSet(skipped)) {
		res.Notes = append(res.Notes, fmt.Sprintf("skipped %d entries of domain %s, which this ealscope does not support", skipped[dom], dom))
	}
	if len(byDomain) == 0 {
		return res, &rundir.VerifyError{File: f.abs, Field: "memories", Msg: "no entry of a supported domain (" + strings.Join(domains.IDs(), ", ") + ")"}
	}
	doms := engine.SortedSet(boolSet(byDomain))
	rows, err := s.inTx(ctx, func(w *txWriter) error {
		for _, dom := range doms {
			identity := f.sha
			if len(doms) > 1 {
				identity = pyjson.SHA256Hex([]byte(f.sha + "\x00" + dom))
			}
			out, err := s.writeWriterMemories(w, f, dom, byDomain[dom], identity)
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

// writerMemoriesFile is a writer_memories.json read and checked at the top level.
type writerMemoriesFile struct {
	abs, sha string
	top      map[string]any
	list     []any
	writers  map[string]any
}

// wmemEntry is one entry of the file (its index in memories).
type wmemEntry struct {
	index int
	tree  map[string]any
}

// readWriterMemories reads the file and checks its top level: UTF-8 JSON, an object with
// schema_version 1 and a memories list.
func readWriterMemories(path string) (*writerMemoriesFile, error) {
	data, err := rundir.ReadRegularFile(path, rundir.MaxInputFileBytes)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(path)
	if err := rundir.CheckUTF8(abs, 1, data); err != nil {
		return nil, err
	}
	tree, err := pyjson.DecodeTree(data)
	var ie *pyjson.InputError
	if errors.As(err, &ie) {
		return nil, &rundir.VerifyError{File: abs, Line: ie.Line, Field: ie.Field, Msg: ie.Msg}
	}
	if err != nil {
		return nil, &rundir.VerifyError{File: abs, Msg: fmt.Sprintf("invalid JSON: %v", err)}
	}
	top, ok := tree.(map[string]any)
	if !ok {
		return nil, &rundir.VerifyError{File: abs, Msg: "expected an object with memories, writers and schema_version"}
	}
	if v, err := engine.Int("schema_version", top["schema_version"]); err != nil || v != 1 {
		msg := fmt.Sprintf("unknown writer-memories schema_version %v (ealscope reads the number 1)", top["schema_version"])
		if s, isString := top["schema_version"].(string); isString {
			// "1" and 1 print alike: say which one the file holds.
			msg = fmt.Sprintf("schema_version is the string %q; ealscope reads the number 1 (write it without quotes)", s)
		}
		return nil, &rundir.VerifyError{File: abs, Field: "schema_version", Msg: msg}
	}
	list, ok := top["memories"].([]any)
	if !ok {
		return nil, &rundir.VerifyError{File: abs, Field: "memories", Msg: "missing or not a list"}
	}
	writers, _ := top["writers"].(map[string]any)
	return &writerMemoriesFile{abs: abs, sha: pyjson.SHA256Hex(data), top: top, list: list, writers: writers}, nil
}

// entriesByDomain checks every entry and groups those of supported domains by domain; the
// others are counted by domain.
func (f *writerMemoriesFile) entriesByDomain() (map[string][]wmemEntry, map[string]int, error) {
	byDomain := map[string][]wmemEntry{}
	skipped := map[string]int{}
	chainOf := map[string]int{}
	for i, item := range f.list {
		field := fmt.Sprintf("memories[%d]", i)
		m, ok := item.(map[string]any)
		if !ok {
			return nil, nil, &rundir.VerifyError{File: f.abs, Field: field, Msg: "expected an object"}
		}
		for _, k := range []string{"domain_id", "corpus_version", "case_id", "condition_id", "architecture", "content_hash", "writer"} {
			if _, err := engine.NonEmptyStr(k, m[k]); err != nil {
				return nil, nil, &rundir.VerifyError{File: f.abs, Field: field + "." + k, Msg: "missing or not a non-empty string"}
			}
		}
		if _, err := engine.Int("", m["writer_run_id"]); err != nil {
			return nil, nil, &rundir.VerifyError{File: f.abs, Field: field + ".writer_run_id", Msg: "missing or not an integer"}
		}
		if m["payload"] == nil {
			return nil, nil, &rundir.VerifyError{File: f.abs, Field: field + ".payload", Msg: "missing"}
		}
		// One chain holds one writer memory: a second would be stored as another memory at
		// the same block and counted twice.
		chain := fmt.Sprint(m["domain_id"], "\x00", m["corpus_version"], "\x00", m["case_id"], "\x00", m["condition_id"], "\x00", m["writer"], "\x00", m["writer_run_id"])
		if first, dup := chainOf[chain]; dup {
			return nil, nil, &rundir.VerifyError{File: f.abs, Field: field, Msg: fmt.Sprintf("a second memory for the chain of memories[%d] (case %s, condition %s, writer %s, writer_run_id %v): one memory per chain", first, m["case_id"], m["condition_id"], m["writer"], m["writer_run_id"])}
		}
		chainOf[chain] = i
		if got := pyjson.MustContentHash(m["payload"]); got != m["content_hash"].(string) {
			return nil, nil, &rundir.VerifyError{File: f.abs, Field: field + ".content_hash", Msg: fmt.Sprintf("is %s but the payload hashes to %s", m["content_hash"], got)}
		}
		dom := m["domain_id"].(string)
		if _, err := domains.Get(dom); err != nil {
			skipped[dom]++
			continue
		}
		byDomain[dom] = append(byDomain[dom], wmemEntry{i, m})
	}
	return byDomain, skipped, nil
}

// writeWriterMemories stores one domain's entries as one run (identity is its manifest
// sha256), in w's transaction: every entry's case must be in the workspace (or the built-in
// corpus); the entries become rows in the memories.jsonl shape, so the run goes through the
// same derivation as an imported run directory.
func (s *Store) writeWriterMemories(w *txWriter, f *writerMemoriesFile, dom string, entries []wmemEntry, identity string) (writeOutcome, error) {
	d, _ := domains.Get(dom)
	sets := map[string]*caseSet{}
	for _, e := range entries {
		version := e.tree["corpus_version"].(string)
		caseID := e.tree["case_id"].(string)
		if _, err := s.ensureCorpus(w, d, version); err != nil {
			return writeOutcome{}, err
		}
		key := version + "\x00" + caseID
		if sets[key] == nil {
			cs, err := loadCases(w, d, version, []string{caseID})
			if err != nil {
				return writeOutcome{}, err
			}
			sets[key] = cs
		}
		if sets[key].cases[caseID] == nil {
			return writeOutcome{}, &rundir.VerifyError{File: f.abs, Field: fmt.Sprintf("memories[%d].corpus_version", e.index),
				Msg: fmt.Sprintf("case %s needs corpus %s/%s, which is not in the workspace: import it with --corpus FILE", caseID, dom, version)}
		}
	}
	var memRows []rundir.Row
	versions := map[string]bool{}
	for _, e := range entries {
		version := e.tree["corpus_version"].(string)
		versions[version] = true
		c := sets[version+"\x00"+e.tree["case_id"].(string)].cases[e.tree["case_id"].(string)]
		memRows = append(memRows, rundir.Row{Line: e.index + 1, Tree: f.memoryRow(dom, e.tree, c.LastBlock())})
	}
	manifest := map[string]any{}
	for k, v := range f.top {
		if k != "memories" {
			manifest[k] = v
		}
	}
	manifest["source_file"] = f.abs
	vs := engine.SortedSet(versions)
	run := &rundir.Run{Dir: f.abs, Manifest: manifest, Status: rundir.StatusCompleted, Files: map[string][]rundir.Row{rundir.Memories: memRows}}
	info := runInfo{kind: KindWriterMemories, manifestSHA: identity, manifest: manifest, status: rundir.StatusCompleted, importedFrom: f.abs,
		domainID: dom, study: "writer_memories", counts: map[string]int{rundir.Memories: len(memRows)}, verificationOK: "verified"}
	if len(vs) == 1 {
		info.corpusVersion = vs[0]
	}
	// With several versions, corpusVersion stays "": cases resolve by id across the domain's
	// versions.
	return s.writeRun(w, info, run)
}

// memoryRow is an entry as a memories.jsonl row, placed at its case's final block.
func (f *writerMemoriesFile) memoryRow(dom string, m map[string]any, finalBlock int) map[string]any {
	writer := m["writer"].(string)
	prov := map[string]any{"target_id": writer}
	if wm, ok := f.writers[writer].(map[string]any); ok {
		for k, v := range wm {
			prov[k] = v
		}
	}
	memID, _ := m["variant_id"].(string)
	if memID == "" {
		memID = pyjson.StableID24("mem", dom, m["case_id"].(string), m["condition_id"].(string), writer, fmt.Sprint(m["writer_run_id"]), m["content_hash"].(string))
	}
	return map[string]any{
		"memory_id": memID, "chain_id": "", "domain_id": dom, "case_id": m["case_id"], "condition_id": m["condition_id"],
		"block_index": json.Number(fmt.Sprint(finalBlock)), "writer_run_id": m["writer_run_id"], "writer_seed": m["writer_seed"], "writer": prov,
		"architecture": m["architecture"], "origin": "writer", "content_hash": m["content_hash"], "payload": m["payload"],
		"faithful_comparison": m["faithful_comparison"], "variant_id": m["variant_id"], "corpus_version": m["corpus_version"],
	}
}

func boolSet[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
