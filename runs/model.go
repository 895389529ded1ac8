package runs

import (
	"strconv"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs/rundir"
)

// A run's rows belong to chains: one chain per case x condition x writer target x writer run.
// Rows are attached through the ids they share (state -> current memory, evidence -> memory,
// trial -> evidence), so a chain's rows agree even where a row type leaves the writer or run id
// out (baseline memories carry a null writer_run_id; states carry no writer). Import attaches
// rows as it streams them (stream.go); derivation then reads one case's chains back at a time
// (chainAcc, loaded by loadChain).

type chainKey struct {
	caseID, condition, writer string
	writerRun                 int64
}

// chainAcc is one chain as derivation sees it: the rows derived facts depend on, read back
// from the workspace.
type chainAcc struct {
	key      chainKey
	pk       int64
	memories []*memRec
	states   []*stateRec
	trials   []*trialRec
	// c is the case when its corpus is in the workspace.
	c      *engine.Case
	casePK int64
}

type memRec struct {
	id      string
	block   int
	arch    string
	origin  string
	hash    string
	payload any
	chain   *chainAcc
}

type stateRec struct {
	block   int
	status  string
	current *string
}

type trialRec struct {
	// row is the trial's stored line (its Tree; Line is its line in trials.jsonl).
	row      rundir.Row
	pk       int64
	trialID  string
	probeID  string
	memoryID *string
	executor string
	execRun  int64
	// oracleBlock is the executor plan's (or metadata's) oracle block; nil means the final block.
	oracleBlock *int
	// rescored is our scorer's outcome (nil when the case or probe is unavailable).
	rescored *engine.Outcome
}

func writerTarget(v any) string {
	m, _ := v.(map[string]any)
	s, _ := m["target_id"].(string)
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }
