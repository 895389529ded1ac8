package workbench

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/ealscope/ealscope/engine/cause"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
)

// DiagnoseStore is what diagnosing a workspace run reads.
type DiagnoseStore interface {
	WhyStore
	SafeguardChains(ctx context.Context, runID string) ([]runs.ChainRow, error)
}

// DiagnoseReport counts what DiagnoseRun wrote.
type DiagnoseReport struct {
	Chains, Rows int
	// JudgeFailures are the model judges' provider errors ("judge: error" per failed call);
	// such a judge gives no judgement on that row and its vote is not counted.
	JudgeFailures []string
}

// ErrorBlock is EAL-Bench's error block of a request in a chain (docs/FORMATS.md): the first
// block from which the memory authorizes the request the ledger denies at every later block.
// ok is false when it does not at the last block.
func ErrorBlock(formedAt func(block int) []string, last int, probe string) (int, bool) {
	b := last
	for b >= 0 && slices.Contains(formedAt(b), probe) {
		b--
	}
	if b == last {
		return 0, false
	}
	return b + 1, true
}

// DiagnoseRun writes one EAL-Bench diagnosis row for every false-authorization failure of the
// run's writer chains (chain, error block, submitted request that the final memory wrongly
// authorizes), with ealscope's rule-based judgement and, when judges are given, theirs, and
// the consensus and agreement of the model judges computed as EAL-Bench does.
func DiagnoseRun(ctx context.Context, store DiagnoseStore, runID string, judges []replay.NamedJudge, w io.Writer) (DiagnoseReport, error) {
	var rep DiagnoseReport
	chains, err := store.SafeguardChains(ctx, runID)
	if err != nil {
		return rep, err
	}
	for _, row := range chains {
		if row.FirstFalseAuthorityBlock == nil {
			continue
		}
		wc, err := LoadWhyChain(ctx, store, row.Key)
		if err != nil {
			return rep, err
		}
		rep.Chains++
		c := wc.src.Case
		last := c.LastBlock()
		for _, probe := range wc.FormedAt(last) {
			block, ok := ErrorBlock(wc.FormedAt, last, probe)
			if !ok {
				continue
			}
			line, failed, err := wc.diagnosisRow(ctx, block, probe, judges)
			if err != nil {
				return rep, fmt.Errorf("chain %s · %s, probe %s: %w", row.CaseID, row.ConditionID, probe, err)
			}
			rep.JudgeFailures = append(rep.JudgeFailures, failed...)
			if _, err := w.Write(line); err != nil {
				return rep, err
			}
			rep.Rows++
		}
	}
	return rep, nil
}

func (wc *WhyChain) diagnosisRow(ctx context.Context, block int, probe string, judges []replay.NamedJudge) ([]byte, []string, error) {
	y, err := wc.Explain(WhyQuery{Key: wc.key, Block: block, Probe: probe})
	if err != nil {
		return nil, nil, err
	}
	d, c, h := wc.src.Domain, wc.src.Case, wc.src.Chain
	p, _ := c.Probe(probe)
	var fields map[string]any
	if rr, ok := d.(cause.RequestReader); ok {
		fields = rr.RequestFields(p, "submitted")
	}
	row := replay.RunRow{Run: h.RunID, Domain: d.ID(), CaseID: h.CaseID, ConditionID: h.ConditionID, Writer: h.Writer,
		WriterRunID: h.WriterRunID, ChainID: wc.writer.EALChainID, ProbeID: probe, RequestKind: "submitted", Request: fields,
		ErrorBlock: block, AttemptStatuses: nonNilStrings(wc.attempts[block]),
		Judges: map[string]replay.JudgeEntry{replay.RulesJudge: replay.EntryOf(y.Attribution)}}
	var failed []string
	if len(judges) > 0 {
		before, _, err := wc.memoryAt(block - 1)
		if err != nil {
			return nil, nil, err
		}
		after, _, err := wc.memoryAt(block)
		if err != nil {
			return nil, nil, err
		}
		msgs, err := replay.JudgeMessages(replay.JudgeCase{Domain: d, Case: c, Block: block, Probe: p, Before: before, After: after, Attempts: wc.attempts[block]})
		if err != nil {
			return nil, nil, err
		}
		got, errs := replay.AskJudges(ctx, judges, msgs)
		for name, e := range got {
			row.Judges[name] = e
		}
		for name, e := range errs {
			failed = append(failed, name+": "+e)
		}
		if len(got) > 0 {
			consensus, agreement := replay.Consensus(got)
			row.Consensus, row.Agreement = &consensus, &agreement
		}
	}
	return row.Line(), failed, nil
}

func nonNilStrings(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
