package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/rundir"
)

// The fixtures below build small runs with rundir.Writer from hand-made rows over the built-in
// corpus: a faithful typed chain (the exact arm), an incremental typed chain that misses the
// case's last ledger event (so it forms false authority at that event's block), and a one-shot
// free-text chain (unscored until annotated). Trials come from a memory-faithful executor
// scored with engine.Score, so the stored decisions are what our scorer computes.

var dom = procurement.Domain{}

func builtinCases(t testing.TB) []*engine.Case {
	t.Helper()
	cases, err := engine.BuiltinCases(dom)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

func findCase(t testing.TB, cases []*engine.Case, id string) *engine.Case {
	t.Helper()
	for _, c := range cases {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no case %s", id)
	return nil
}

func sp(s string) *string { return &s }
func ip(n int) *int       { return &n }
func i64p(n int64) *int64 { return &n }

// lastEventBlock is the block of the case's last ledger event.
func lastEventBlock(c *engine.Case) int {
	last := 0
	for _, e := range c.Events {
		last = max(last, e.BlockIndex)
	}
	return last
}

type fixtureOptions struct {
	corpusVersion string
	status        string
	cases         []*engine.Case
	// freeText adds a one-shot free-text chain per case.
	freeText bool
}

const fixtureWriter = "scripted_fixture"

func provenance(target string) *rundir.ModelProvenance {
	return &rundir.ModelProvenance{TargetID: target, Provider: "ealscope", RequestedModel: target, ResolvedModel: target, EffectiveParameters: map[string]any{}}
}

// memoryFaithfulTrial scores what a memory-faithful executor does with the memory: act iff the
// memory authorizes the request, else escalate.
func memoryFaithfulTrial(t testing.TB, c *engine.Case, p engine.Probe, memory []engine.Record) engine.Outcome {
	t.Helper()
	var name string
	var args map[string]any
	if engine.Authorizes(dom, c, memory, p.Request).Authorized {
		name, args = dom.RequestCall(p)
	} else {
		name, args = dom.EscalationCall(p, "the memory does not authorize this request")
	}
	o, err := engine.Score(dom, c, p, engine.Response{ToolCalls: []engine.ToolCall{{ID: "call_1", Name: name, Arguments: args}}}, -1)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// writeFixtureRun writes a run directory and returns it.
func writeFixtureRun(t testing.TB, dir string, o fixtureOptions) string {
	t.Helper()
	if o.corpusVersion == "" {
		o.corpusVersion = procurement.BuiltinCorpusVersion
	}
	caseIDs := []any{}
	for _, c := range o.cases {
		caseIDs = append(caseIDs, c.ID)
	}
	w, err := rundir.Create(dir, map[string]any{
		"domain_id": "procurement", "corpus_version": o.corpusVersion, "study": "fixture", "started_at": "2026-11-30T10:00:00Z",
		"case_ids": caseIDs, "artifact_schema_versions": map[string]any{"memories": 4, "trials": 5, "memory_states": 3},
	})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	callN := 0
	for _, c := range o.cases {
		final := c.LastBlock()
		type chainOut struct {
			condition, arch, writer string
			memID                   string
			payload                 any
			records                 []engine.Record
		}
		var chains []chainOut
		// Faithful typed: the exact arm, one memory at the final block.
		ledger, err := dom.Replay(c, final)
		must(err)
		payload := mustTree(t, dom.TypedPayload(ledger))
		fid := pyjson.StableID64("mem", "chain_faithful_"+c.ID, "", fmt.Sprint(final), pyjson.MustContentHash(payload))
		must(w.Append(rundir.Memories, rundir.MemoryArtifact{
			MemoryID: fid, ChainID: "chain_faithful_" + c.ID, DomainID: "procurement", CaseID: c.ID, ConditionID: "faithful_typed", BlockIndex: final,
			Architecture: "typed", Origin: "faithful", PayloadSchemaID: sp(procurement.PayloadSchemaID), PayloadSchemaVersion: sp("3"), Payload: payload,
			ReferenceTokenizer: "cl100k_base", ContentHash: pyjson.MustContentHash(payload), PresentationID: "naturalistic_v1", FrameworkRunIDs: []string{}, Framework: map[string]any{}, SchemaVersion: 4,
		}))
		chains = append(chains, chainOut{"faithful_typed", "typed", "", fid, payload, ledger})
		// Incremental typed, missing the last ledger event.
		miss := lastEventBlock(c)
		chainID := pyjson.StableID24("chain", "procurement", c.ID, "incremental_typed", "0", fixtureWriter)
		var parent *string
		var prevHash string
		var curID string
		var curPayload any
		var curRecords []engine.Record
		for k := 0; k <= final; k++ {
			seen := min(k, miss-1)
			recs, err := dom.Replay(c, seen)
			must(err)
			p := mustTree(t, dom.TypedPayload(recs))
			h := pyjson.MustContentHash(p)
			update := pyjson.StableID24("update", chainID, fmt.Sprint(k))
			attempt := pyjson.StableID24("attempt", update, "1")
			status := "no_change"
			if h != prevHash {
				status = "accepted"
				curID = pyjson.StableID24("mem", chainID, deref(parent), fmt.Sprint(k), h)
				must(w.Append(rundir.Memories, rundir.MemoryArtifact{
					MemoryID: curID, ParentMemoryID: parent, ChainID: chainID, DomainID: "procurement", CaseID: c.ID, ConditionID: "incremental_typed", BlockIndex: k,
					WriterRunID: ip(0), WriterSeed: i64p(0), Writer: provenance(fixtureWriter), Architecture: "typed", Origin: "writer",
					PayloadSchemaID: sp(procurement.PayloadSchemaID), PayloadSchemaVersion: sp("3"), Payload: p, ReferenceTokenizer: "cl100k_base", ContentHash: h,
					PresentationID: "naturalistic_v1", SourceAttemptID: sp(attempt), FrameworkRunIDs: []string{}, Framework: map[string]any{}, SchemaVersion: 4,
				}))
				parent, prevHash, curPayload, curRecords = sp(curID), h, p, recs
			}
			must(w.Append(rundir.MemoryAttempts, rundir.MemoryAttempt{
				AttemptID: attempt, LogicalUpdateID: update, AttemptIndex: 1, DomainID: "procurement", CaseID: c.ID, ConditionID: "incremental_typed", BlockIndex: k,
				Architecture: "typed", Writer: provenance(fixtureWriter), Status: status, AcceptedMemoryID: sp(curID), RetainedMemoryID: nil, SchemaVersion: 6,
				ProfileSchemaID: "domains.procurement.schemas.ProcurementAuthorizationMemoryProfile", FrameworkRunIDs: []string{}, Framework: map[string]any{},
			}))
			must(w.Append(rundir.MemoryStates, rundir.MemoryState{
				StateID: pyjson.StableID24("state", update), LogicalUpdateID: update, AttemptIDs: []string{attempt}, DomainID: "procurement", CaseID: c.ID,
				ConditionID: "incremental_typed", BlockIndex: k, Architecture: "typed", CurrentMemoryID: sp(curID), Status: status, Changed: status == "accepted", SchemaVersion: 3,
			}))
		}
		must(w.Append(rundir.Faults, rundir.FaultRow{FaultID: "fault_" + c.ID, Family: "missed_event", DomainID: "procurement", CaseID: c.ID, ConditionID: "incremental_typed",
			BlockIndex: miss, Description: "the writer did not apply the ledger event of this block", ChainID: chainID, MemoryID: curID, SchemaVersion: 1}))
		chains = append(chains, chainOut{"incremental_typed", "typed", fixtureWriter, curID, curPayload, curRecords})
		if o.freeText {
			text := dom.FaithfulText(ledger) + "\n\nNote: the vendor promised a discount on espresso machines."
			h := pyjson.MustContentHash(text)
			tid := pyjson.StableID24("mem", "chain_text_"+c.ID, "", fmt.Sprint(final), h)
			must(w.Append(rundir.Memories, rundir.MemoryArtifact{
				MemoryID: tid, ChainID: "chain_text_" + c.ID, DomainID: "procurement", CaseID: c.ID, ConditionID: "one_shot_text", BlockIndex: final,
				WriterRunID: ip(0), WriterSeed: i64p(0), Writer: provenance(fixtureWriter), Architecture: "free_text", Origin: "writer", Payload: text,
				ReferenceTokenizer: "cl100k_base", ContentHash: h, PresentationID: "naturalistic_v1", FrameworkRunIDs: []string{}, Framework: map[string]any{}, SchemaVersion: 4,
			}))
			chains = append(chains, chainOut{"one_shot_text", "free_text", fixtureWriter, tid, text, ledger})
		}
		for _, ch := range chains {
			runID := 0
			evID := pyjson.StableID24("evidence", "procurement", c.ID, ch.condition, fmt.Sprint(runID), ch.memID)
			var writer *rundir.ModelProvenance
			var wseed *int64
			if ch.writer != "" {
				writer, wseed = provenance(ch.writer), i64p(0)
			}
			must(w.Append(rundir.Evidence, rundir.FrozenEvidence{
				EvidenceID: evID, DomainID: "procurement", CaseID: c.ID, ConditionID: ch.condition, MemoryRunID: runID, WriterSeed: wseed, Writer: writer,
				Architecture: sp(ch.arch), MemoryID: sp(ch.memID), Payload: ch.payload, ContentHash: pyjson.MustContentHash(ch.payload), PresentationID: "naturalistic_v1", SchemaVersion: 3,
			}))
			for _, p := range c.Probes {
				o := memoryFaithfulTrial(t, c, p, ch.records)
				callN++
				callID := fmt.Sprintf("call_%04d", callN)
				trialID := pyjson.StableID64("trial", "procurement", evID, p.ID)
				tr := rundir.NormalizedTrial{
					DomainID: "procurement", DomainAdapterVersion: "3", CaseID: c.ID, ProbeID: p.ID, ConditionID: ch.condition, Writer: writer,
					Executor: *provenance("builtin_faithful"), WriterRunID: runID, WriterSeed: wseed, EvidenceID: evID, MemoryID: sp(ch.memID),
					Metadata: rundir.TrialMetadata{Core: map[string]any{"trial_id": trialID, "call_id": callID, "pair_id": p.PairID},
						Study: map[string]any{"study_id": "fixture", "evidence_role": "generated_final"}, Domain: map[string]any{}},
					SchemaVersion: 5,
				}
				tr.ApplyOutcome(o)
				must(w.Append(rundir.Trials, tr))
				must(w.AppendRaw(rundir.Calls, []byte(fmt.Sprintf(`{"ts": "2026-11-30T10:00:00+00:00", "call_id": %q, "task": "executor", "error": null}`+"\n", callID))))
				must(w.Append(rundir.ModelContexts, rundir.ModelContext{ContextID: pyjson.StableID64("context", callID), ContentHash: "h", Stage: "executor",
					DomainID: "procurement", CaseID: c.ID, ConditionID: ch.condition, ProbeID: sp(p.ID), TrialID: sp(trialID), CallID: callID,
					Messages: []rundir.Message{}, Tools: []any{}, ToolChoice: "auto", Model: *provenance("builtin_faithful"), PresentationID: "naturalistic_v1", Metadata: map[string]any{}, SchemaVersion: 1}))
			}
		}
	}
	status := o.status
	if status == "" {
		status = rundir.StatusCompleted
	}
	must(w.Finish(status, map[string]any{"finished_at": "2026-11-30T10:01:00Z"}))
	return dir
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func mustTree(t testing.TB, v any) any {
	t.Helper()
	tree, err := pyjson.Retree(v)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func fileSHA(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return pyjson.SHA256Hex(b)
}

// envSize is the positive whole number in the environment variable name, else def: how a
// benchmark's or a measuring test's size is overridden (e.g. smaller for a quick profile).
func envSize(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// importOne imports one path into s with the default options and returns what it made of
// it; an import error fails the test.
func importOne(t testing.TB, s *Store, path string) PathResult {
	t.Helper()
	rep, err := s.Import(context.Background(), []string{path}, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Results[0]
}

func openStore(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ws", "workspace.db")
	s := mustOpen(t, path)
	t.Cleanup(func() { s.Close() })
	return s, path
}

// mustOpen opens the workspace at path; an error fails the test. The caller closes it.
func mustOpen(t testing.TB, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
