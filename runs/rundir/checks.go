package rundir

import (
	"fmt"
	"path/filepath"

	"github.com/ealscope/ealscope/engine"
)

// MaxBlockIndex bounds every block_index a row may carry before its case is known: EAL-Bench
// cases have a handful of blocks (docs/FORMATS.md §2, block_index 0..n-1), so anything past this is
// a broken or hostile row, not a long case. The importer checks the exact bound (the case's
// block count) once the case is at hand.
const MaxBlockIndex = 1 << 16

// blockIndexFields are the block-index fields of each artifact.
var blockIndexFields = map[string][]string{
	Memories: {"block_index"}, "writer_bundle_memories": {"block_index"}, MemoryAttempts: {"block_index"},
	MemoryStates: {"block_index"}, ModelContexts: {"block_index"}, "writer_model_contexts": {"block_index"},
	ExecutorPlan: {"oracle_block_index"}, Faults: {"block_index"},
}

// checkBlockIndexes refuses a negative block index or one past MaxBlockIndex.
func checkBlockIndexes(name string, r Row) error {
	for _, k := range blockIndexFields[name] {
		if r.Tree[k] == nil {
			continue
		}
		v, err := engine.Int(k, r.Tree[k])
		if err != nil {
			return err
		}
		if v < 0 || v > MaxBlockIndex {
			return engine.Errf(k, "block index %d is out of range (0..%d)", v, MaxBlockIndex)
		}
	}
	return nil
}

// trialIdentity is what makes a trials.jsonl row one trial: EAL-Bench's trial_id
// (metadata.core.trial_id, docs/FORMATS.md §7) when present, else the evidence, probe, executor and
// executor run it was scored on. The field is the one reported for a repeat.
func trialIdentity(r Row) (key, field string) {
	md, _ := r.Tree["metadata"].(map[string]any)
	core, _ := md["core"].(map[string]any)
	if id, _ := core["trial_id"].(string); id != "" {
		return "id:" + id, "metadata.core.trial_id"
	}
	exec, _ := r.Tree["executor"].(map[string]any)
	target, _ := exec["target_id"].(string)
	return fmt.Sprintf("row:%s\x00%s\x00%s\x00%s\x00%s\x00%d", r.Str("case_id"), r.Str("condition_id"), r.Str("evidence_id"), r.Str("probe_id"), target, r.Int("executor_run_id")), "probe_id"
}

// caseBearing are the artifacts whose case ids make up the cases a run has.
var caseBearing = map[string]bool{Memories: true, MemoryAttempts: true, MemoryStates: true, Evidence: true}

// trialChecks collects, while trials are read, the repeats of one trial and the case ids
// trials name, checked once every artifact has been read (checkTrials).
type trialChecks struct {
	seen      map[idKey]int // trial identity -> first line
	repeat    *pendingRef
	repeatOf  int
	runCases  map[string]bool
	haveCases bool
	trialCase []pendingRef
}

func newTrialChecks() *trialChecks {
	return &trialChecks{seen: map[idKey]int{}, runCases: map[string]bool{}}
}

func (t *trialChecks) add(name string, r Row) {
	if caseBearing[name] {
		t.haveCases = true
		t.runCases[r.Str("case_id")] = true
	}
	if name != Trials {
		return
	}
	key, field := trialIdentity(r)
	if first, dup := t.seen[keyOfString(key)]; dup {
		if t.repeat == nil {
			t.repeat = &pendingRef{line: r.Line, field: field, value: key}
			t.repeatOf = first
		}
	} else {
		t.seen[keyOfString(key)] = r.Line
	}
	if !t.runCases[r.Str("case_id")] {
		t.trialCase = append(t.trialCase, pendingRef{line: r.Line, field: "case_id", value: r.Str("case_id")})
	}
}

// check refuses a trial recorded twice (it would be stored and counted twice) and a trial
// naming a case none of the run's memories, attempts, states or evidence belong to.
func (t *trialChecks) check(run *Run) error {
	file := filepath.Join(run.Dir, run.Entries[Trials].Path)
	if t.repeat != nil {
		return verr(file, t.repeat.line, t.repeat.field, "the same trial as line %d: a trial is recorded once (it would be counted twice)", t.repeatOf)
	}
	if !t.haveCases {
		return nil
	}
	for _, p := range t.trialCase {
		if !t.runCases[p.value] {
			return verr(file, p.line, p.field, "case %q has no memory, attempt, state or evidence row in this run", p.value)
		}
	}
	return nil
}
