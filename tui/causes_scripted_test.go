package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/runs"
)

// TestScriptedFaultTurnAmongCandidates: on the fixture's scripted run, at every chain's first
// false-authority block, some fault still in the memory there came from a turn the candidate
// causes name, and the scripted faults are listed among the candidates and in the pane. It
// also counts how often ealscope's heuristics ("ignored", "misleading") alone name none of
// those turns: the scripted writer knows the cause, the heuristics only guess it.
func TestScriptedFaultTurnAmongCandidates(t *testing.T) {
	store, runID := testStore(t)
	ctx := context.Background()
	rows, err := store.Chains(ctx, runs.ChainFilter{RunID: runID})
	if err != nil {
		t.Fatal(err)
	}
	var chains, heuristicMiss, withFaultTurn, missEarlier int
	for _, row := range rows {
		if row.FirstFalseAuthorityBlock == nil {
			continue
		}
		chains++
		h, err := store.Chain(ctx, row.Key)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := store.ChainBlocks(ctx, row.Key)
		if err != nil {
			t.Fatal(err)
		}
		d := presentChainDetail(h, steps)
		b, err := loadBlock(ctx, store, d, *row.FirstFalseAuthorityBlock)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.ActiveFaults) == 0 {
			t.Errorf("chain %s/%s: no scripted fault active at its first false-authority block %d (faults %+v)", row.CaseID, row.ConditionID, b.Index, d.Faults)
			continue
		}
		faultTurns := map[string]bool{}
		earlierOnly := true
		for _, f := range b.ActiveFaults {
			if len(f.SourceTurnIDs) == 0 {
				t.Errorf("chain %s/%s: fault %s %s has no source turn", row.CaseID, row.ConditionID, f.Family, f.AuthorizationID)
			}
			if f.Family == runs.FaultExtraRecord {
				assertInventedCites(t, b, f)
			} else {
				assertEventCites(t, d, f)
			}
			earlierOnly = earlierOnly && f.EventBlock < b.Index
			for _, id := range f.SourceTurnIDs {
				faultTurns[id] = true
			}
		}
		if len(faultTurns) > 0 {
			withFaultTurn++
		}
		var all, heuristic, scripted bool
		for _, c := range candidateCauses(b) {
			for _, id := range c.turns {
				if faultTurns[id] {
					all = true
					heuristic = heuristic || c.kind != kindScripted
				}
			}
			scripted = scripted || c.kind == kindScripted
		}
		if !scripted {
			t.Errorf("chain %s/%s block %d: no scripted-fault candidate", row.CaseID, row.ConditionID, b.Index)
		}
		if !all {
			t.Errorf("chain %s/%s block %d: no candidate names a fault's source turn %v", row.CaseID, row.ConditionID, b.Index, faultTurns)
		}
		if !heuristic {
			heuristicMiss++
			if earlierOnly {
				missEarlier++
			}
			t.Logf("heuristics miss chain %s/%s block %d: faults %+v", row.CaseID, row.ConditionID, b.Index, b.ActiveFaults)
		}
		s := chainScreen{c: &common{styles: ptr(NewStyles(NewPalette(true, true))), keys: ptr(DefaultKeyMap()), width: 400, height: 40}, detail: &d}
		pane := strings.Join(s.causeLines(b, 400), "\n")
		if !strings.Contains(pane, "scripted fault: "+b.ActiveFaults[0].Family+" "+b.ActiveFaults[0].AuthorizationID+" from ") {
			t.Errorf("chain %s/%s: the probes pane lists no scripted fault:\n%s", row.CaseID, row.ConditionID, pane)
		}
	}
	if chains == 0 {
		t.Fatal("the fixture run has no chain with a first false-authority block")
	}
	if withFaultTurn != chains {
		t.Errorf("%d of %d chains have a source turn for their active faults", withFaultTurn, chains)
	}
	t.Logf("%d chains with a first false-authority block; the heuristic candidates miss every fault turn in %d (in %d of them every active fault came from an earlier block)",
		chains, heuristicMiss, missEarlier)
}

// assertInventedCites checks the derived turn of an invented record against the memory: the
// record it wrote cites exactly that one turn.
func assertInventedCites(t *testing.T, b BlockDetail, f ScriptedFault) {
	t.Helper()
	if b.Memory == nil {
		t.Errorf("block %d: no memory to hold %s", b.Index, f.AuthorizationID)
		return
	}
	tree, _ := b.Memory.Payload.(map[string]any)
	auths, _ := tree["authorizations"].([]any)
	for _, a := range auths {
		rec, _ := a.(map[string]any)
		if rec["authorization_id"] != f.AuthorizationID {
			continue
		}
		cites, _ := rec["source_turn_ids"].([]any)
		if len(cites) != 1 || len(f.SourceTurnIDs) != 1 || cites[0] != f.SourceTurnIDs[0] {
			t.Errorf("%s cites %v in the memory, the fault says %v", f.AuthorizationID, cites, f.SourceTurnIDs)
		}
		return
	}
	t.Errorf("block %d: the memory holds no %s", b.Index, f.AuthorizationID)
}

// assertEventCites checks the derived turns of a fault on a ledger transition against the
// timeline: each is cited by an event of the fault's event block on the fault's record.
func assertEventCites(t *testing.T, d ChainDetail, f ScriptedFault) {
	t.Helper()
	if f.EventBlock < 0 || f.EventBlock > f.Block || f.EventBlock >= len(d.Blocks) {
		t.Errorf("%s %s: event block %d outside 0..%d", f.Family, f.AuthorizationID, f.EventBlock, f.Block)
		return
	}
	cited := map[string]bool{}
	for _, e := range d.Blocks[f.EventBlock].Events {
		if e.AuthorizationID == f.AuthorizationID {
			for _, id := range e.SourceTurnIDs {
				cited[id] = true
			}
		}
	}
	for _, id := range f.SourceTurnIDs {
		if !cited[id] {
			t.Errorf("%s %s: turn %s is cited by no event of block %d on the record", f.Family, f.AuthorizationID, id, f.EventBlock)
		}
	}
}
