package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/rundir"
	"github.com/ealscope/ealscope/tui"
)

type replayCmd struct {
	workspaceFlag
	RunID string `name:"run" help:"Run id (or unique prefix); optional when one run holds the chain. Required with --formed."`
	Case  string `name:"case" help:"Case id of the chain."`
	chainNameFlags
	Block  int    `name:"block" default:"-1" help:"History block whose memory is re-run (default: the final block, where the imported trials are)."`
	Probe  string `name:"probe" help:"Probe id, a comma list of ids, or 'all'."`
	Memory string `name:"memory" default:"written" help:"Memory variant: written (the chain's memory at the block), exact (oracle-exact at the block), edited (open the written memory in $EDITOR) or @FILE (a payload file)."`
	executorFlag
	Runs        int   `name:"runs" default:"1" help:"Repetitions per probe; repetition r uses seed S + r."`
	Seed        int64 `name:"seed" default:"20260821" help:"Base executor seed."`
	Concurrency int   `name:"concurrency" default:"8" help:"Calls in flight (a model's own concurrency setting bounds it further)."`
	modelCallFlags
	Formed bool `name:"formed" help:"Re-run the exact arm of every (written memory, probe) of --run that forms false authority, then print the end-to-end report."`
	JSON   bool `name:"json" help:"Print the replays and attribution rows as JSON."`
}

func usageErr(format string, args ...any) error {
	return &exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

func (c *replayCmd) Run(g *Globals) error { return untilStopped(g, c.run) }

func (c *replayCmd) run(ctx context.Context, g *Globals) error {
	if c.Runs < 1 {
		return usageErr("--runs must be at least 1, got %d", c.Runs)
	}
	if c.Formed {
		if c.RunID == "" || c.Memory != engine.VariantExact {
			return usageErr("--formed needs --run ID and --memory exact")
		}
	} else if c.Case == "" || c.Condition == "" || c.Probe == "" {
		return usageErr("give --case, --condition and --probe (or --run ID --formed)")
	}
	cfg, store, err := c.openForRerun(g, c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	// Each retry is printed as it happens: a 503's backoff is otherwise seconds of silence.
	progress := newProgress(g.Stderr)
	ctx = replay.WithCallObserver(ctx, progress.observer())
	defer progress.done()
	if c.Formed {
		return c.runFormed(ctx, g, store, cfg)
	}
	chain, err := store.FindChain(ctx, c.RunID, c.Case, c.Condition, c.WriterRun)
	if err != nil {
		return err
	}
	src, err := store.RerunSource(ctx, chain.Key, c.Block)
	if err != nil {
		return err
	}
	probes, err := selectProbes(src, c.Probe)
	if err != nil {
		return err
	}
	mem, err := c.memory(src)
	if err != nil {
		return err
	}
	ex, err := c.models(cfg).Executor(src.Domain, c.Executor, c.Seed)
	if err != nil {
		return err
	}
	results, cancelled, runErr := workbench.Rerun(ctx, store, workbench.RerunRequest{Source: src, Memory: mem, Probes: probes, Executor: ex, Runs: c.Runs, Seed: c.Seed, Workers: c.Concurrency})
	if runErr != nil && len(results) == 0 {
		return runErr
	}
	ids := map[string]bool{}
	for _, r := range results {
		ids[r.ReplayID] = true
		if r.MirrorMismatch() {
			fmt.Fprintf(g.textErr(), "ealscope: warning: replay %s sent a request (hash %s) that differs from the mirrored trial %s (context hash %s)\n",
				r.ReplayID, r.RequestHash, r.Mirror.TrialID, r.Mirror.ContextHash)
		}
	}
	stored, err := workbench.StoredReplays(ctx, store, results)
	if err != nil {
		return err
	}
	attribution, err := store.AttributionForChain(ctx, chain.Key)
	if err != nil {
		return err
	}
	var rows []runs.ReplayAttribution
	for _, a := range attribution {
		if (a.WrittenReplayID != nil && ids[*a.WrittenReplayID]) || (a.ExactReplayID != nil && ids[*a.ExactReplayID]) {
			rows = append(rows, a)
		}
	}
	if c.JSON {
		err = writeJSON(g.Stdout, replayOutput(stored, rows))
	} else {
		printReplays(g.text(), chain, stored, rows)
	}
	if err != nil {
		return err
	}
	switch {
	case runErr != nil:
		return runErr
	case cancelled:
		return &exitError{code: 130, msg: fmt.Sprintf("re-run cancelled; %d finished arms are stored", len(results))}
	}
	return nil
}

// selectProbes resolves --probe: "all" or a comma list of the case's probe ids.
func selectProbes(src runs.RerunSource, spec string) ([]runs.RerunProbeSource, error) {
	if spec == "all" {
		return src.Probes, nil
	}
	byID := map[string]runs.RerunProbeSource{}
	var known []string
	for _, p := range src.Probes {
		byID[p.Probe.ID] = p
		known = append(known, p.Probe.ID)
	}
	var out []runs.RerunProbeSource
	for _, id := range splitList(spec) {
		p, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("--probe %s: not a probe of case %s (probes: %s)", id, src.Case.ID, strings.Join(known, ", "))
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, usageErr("--probe: no probe ids given")
	}
	return out, nil
}

// memory resolves --memory into the arm's payload. Hand-made typed payloads are validated
// against the domain's schema here, before any call is made.
func (c *replayCmd) memory(src runs.RerunSource) (replay.RerunMemory, error) {
	switch {
	case c.Memory == engine.VariantWritten:
		if src.MemoryID == "" {
			return replay.RerunMemory{}, fmt.Errorf("chain %s/%s has no written memory at block %d yet (try a later --block or --memory exact)", src.Chain.CaseID, src.Chain.ConditionID, src.Block)
		}
		return replay.WrittenMemory(src.Architecture, src.Payload, src.MemoryID)
	case c.Memory == engine.VariantExact:
		return replay.ExactMemory(src.Domain, src.Case, src.Block, src.Architecture)
	case c.Memory == engine.VariantEdited:
		return editMemory(src)
	case strings.HasPrefix(c.Memory, "@"):
		path := strings.TrimPrefix(c.Memory, "@")
		data, err := rundir.ReadRegularFile(path, rundir.MaxInputFileBytes)
		if err != nil {
			return replay.RerunMemory{}, err
		}
		return replay.ParseMemoryText(src.Domain, src.Architecture, path, engine.VariantFile, data)
	}
	return replay.RerunMemory{}, usageErr("--memory %q: want written, exact, edited or @FILE", c.Memory)
}

// editMemory opens the written memory (or, before the first memory, the exact one) in
// $VISUAL / $EDITOR and reads the result back as an edited arm.
func editMemory(src runs.RerunSource) (replay.RerunMemory, error) {
	e, err := workbench.StartEdit(src)
	if errors.Is(err, workbench.ErrNoEditor) {
		return replay.RerunMemory{}, usageErr("--memory edited needs $EDITOR (or $VISUAL); or write the payload to a file and pass --memory @FILE")
	}
	if err != nil {
		return replay.RerunMemory{}, err
	}
	defer e.Close()
	e.Command.Stdin, e.Command.Stdout, e.Command.Stderr = os.Stdin, os.Stdout, os.Stderr
	return e.Read(e.Command.Run())
}

// replayJSON is the replay row shape (EAL-Bench's trial field names).
type replayJSON struct {
	ReplayID          string `json:"replay_id"`
	CaseID            string `json:"case_id"`
	ConditionID       string `json:"condition_id"`
	WriterRunID       int64  `json:"writer_run_id"`
	BlockIndex        int    `json:"block_index"`
	ProbeID           string `json:"probe_id"`
	MemoryVariant     string `json:"memory_variant"`
	MemoryContentHash string `json:"memory_content_hash"`
	Executor          string `json:"executor"`
	Seed              int64  `json:"seed"`
	// Outcome is the scored decision (EAL-Bench's trial fields), declared once in engine.
	engine.Outcome
	OracleReason string `json:"oracle_reason"`
	RequestHash  string `json:"request_hash"`
	LatencyMS    int64  `json:"latency_ms"`
	// Redactions are the reply's fields from which credentials were removed before storing.
	Redactions json.RawMessage `json:"redactions,omitempty"`
}

// responseRedactions is the "redactions" member of a stored response ("" when none).
func responseRedactions(resp json.RawMessage) json.RawMessage {
	var r struct {
		Redactions json.RawMessage `json:"redactions"`
	}
	if json.Unmarshal(resp, &r) != nil || string(r.Redactions) == "null" {
		return nil
	}
	return r.Redactions
}

// attributionJSON is the attribution row shape (EAL-Bench's names).
type attributionJSON struct {
	CaseID       string   `json:"case_id"`
	ConditionID  string   `json:"condition_id"`
	WriterRunID  int64    `json:"writer_run_id"`
	ProbeID      string   `json:"probe_id"`
	MemoryFormed bool     `json:"memory_formed"`
	Attributed   bool     `json:"attributed"`
	Reasons      []string `json:"reasons"`
}

// replayDoc is the --json document: replays, then attribution (then the --formed report).
type replayDoc struct {
	Replays     []replayJSON      `json:"replays"`
	Attribution []attributionJSON `json:"attribution"`
	// Counts are the acted counts per probe and arm, provider errors apart.
	Counts []armCount      `json:"counts"`
	Report *endToEndReport `json:"report,omitempty"`
}

func replayOutput(rs []runs.Replay, as []runs.ReplayAttribution) replayDoc {
	replays := make([]replayJSON, 0, len(rs))
	for _, r := range rs {
		replays = append(replays, replayJSON{
			ReplayID: r.ReplayID, CaseID: r.CaseID, ConditionID: r.ConditionID, WriterRunID: r.WriterRunID, BlockIndex: r.BlockIndex, ProbeID: r.ProbeID,
			MemoryVariant: r.MemoryVariant, MemoryContentHash: r.MemoryContentHash, Executor: r.Executor, Seed: r.Seed,
			Outcome: r.Outcome, OracleReason: r.OracleReason, RequestHash: r.RequestHash, LatencyMS: r.LatencyMS,
			Redactions: responseRedactions(r.Response),
		})
	}
	attribution := make([]attributionJSON, 0, len(as))
	for _, a := range as {
		attribution = append(attribution, attributionJSON{CaseID: a.CaseID, ConditionID: a.ConditionID, WriterRunID: a.WriterRunID, ProbeID: a.ProbeID,
			MemoryFormed: a.MemoryFormed, Attributed: a.Attributed, Reasons: a.Reasons})
	}
	return replayDoc{Replays: replays, Attribution: attribution, Counts: countArms(rs)}
}

// armCount is one (probe, memory variant) of a re-run: provider errors are not estimable and
// stay out of the acted count's denominator (Estimable).
type armCount struct {
	ProbeID       string `json:"probe_id"`
	MemoryVariant string `json:"memory_variant"`
	Trials        int    `json:"trials"`
	Estimable     int    `json:"estimable"`
	NotEstimable  int    `json:"not_estimable"`
	Acted         int    `json:"acted"`
}

func countArms(rs []runs.Replay) []armCount {
	idx := map[string]int{}
	var out []armCount
	for _, r := range rs {
		k := r.ProbeID + "\x00" + r.MemoryVariant
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, armCount{ProbeID: r.ProbeID, MemoryVariant: r.MemoryVariant})
		}
		c := &out[i]
		c.Trials++
		switch {
		case r.ProviderError != nil:
			c.NotEstimable++
		case r.RequestedActionTaken:
			c.Acted++
			c.Estimable++
		default:
			c.Estimable++
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ProbeID != out[j].ProbeID {
			return out[i].ProbeID < out[j].ProbeID
		}
		return out[i].MemoryVariant < out[j].MemoryVariant
	})
	return out
}

func printReplays(w io.Writer, chain runs.ChainRow, rs []runs.Replay, as []runs.ReplayAttribution) {
	fmt.Fprintf(w, "chain %s %s/%s writer run %d\n", chain.RunID, chain.CaseID, chain.ConditionID, chain.WriterRunID)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROBE\tBLOCK\tMEMORY\tEXECUTOR\tSEED\tDECISION\tCOMPLIANT\tUNAUTHORIZED\tREQUEST\tLATENCY")
	for _, r := range rs {
		decision := r.Decision
		compliant, unauthorized := fmt.Sprint(r.Compliant), fmt.Sprint(r.UnauthorizedActionTaken)
		if r.ProviderError != nil {
			decision += " (" + truncate(*r.ProviderError, 60) + ")"
			compliant, unauthorized = "not estimable", "not estimable" // no decision was made
		}
		fmt.Fprintf(tw, "%s\t%d\t%s %s\t%s\t%d\t%s\t%s\t%s\t%s\t%dms\n", r.ProbeID, r.BlockIndex, r.MemoryVariant, r.MemoryContentHash[:12], r.Executor, r.Seed,
			decision, compliant, unauthorized, r.RequestHash[:12], r.LatencyMS)
	}
	tw.Flush()
	for _, c := range countArms(rs) {
		fmt.Fprintf(w, "  %s %s: %s\n", c.ProbeID, c.MemoryVariant, tui.ActedText(c.Acted, c.Trials, c.NotEstimable))
	}
	for _, a := range as {
		verdict := "not attributed: " + strings.Join(a.Reasons, ", ")
		if a.Attributed {
			verdict = engine.AttributedLabel
		}
		fmt.Fprintf(w, "attribution %s (%s arm, repetition %d): %s\n", a.ProbeID, a.MemoryVariant, a.Repetition, verdict)
	}
}

func truncate(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// endToEndReport is the --formed report (workbench.EndToEndReport).
type endToEndReport = workbench.EndToEndReport

func (c *replayCmd) runFormed(ctx context.Context, g *Globals, store *runs.Store, cfg *replay.Config) error {
	res, err := workbench.RerunFormed(ctx, store, c.models(cfg), workbench.FormedRequest{RunID: c.RunID, Executor: c.Executor, Seed: c.Seed, Runs: c.Runs, Workers: c.Concurrency})
	if err != nil {
		return err
	}
	if c.JSON {
		out := replayOutput(res.Replays, res.Rows)
		out.Report = &res.Report
		err = writeJSON(g.Stdout, out)
	} else {
		printReport(g.text(), res.Report)
	}
	if err != nil {
		return err
	}
	if res.Cancelled {
		return &exitError{code: 130, msg: fmt.Sprintf("re-run cancelled; %d finished arms are stored", len(res.Replays))}
	}
	return nil
}

func printReport(w io.Writer, r endToEndReport) {
	fmt.Fprintf(w, "end-to-end attribution, run %s, exact arm on %s\n", r.RunID, r.Executor)
	rate := "n/a"
	if r.FormationRate != nil {
		rate = fmt.Sprintf("%.3f", *r.FormationRate)
	}
	fmt.Fprintf(w, "  memories: %d scored, %d forming (formation rate %s), %d not estimable\n", r.MemoriesScored, r.MemoriesForming, rate, r.MemoriesNotEstimable)
	fmt.Fprintf(w, "  requests: %d scored, %d not estimable\n", r.RequestsScored, r.RequestsNotEstimable)
	fmt.Fprintf(w, "  unauthorized submission: written %d/%d, exact %d/%d\n", r.WrittenUnauthorizedSubmission[0], r.WrittenUnauthorizedSubmission[1],
		r.ExactUnauthorizedSubmission[0], r.ExactUnauthorizedSubmission[1])
	fmt.Fprintf(w, "  attributed memory-induced: %d\n", r.AttributedMemoryInduced)
	for _, k := range slices.Sorted(maps.Keys(r.Unattributed)) {
		fmt.Fprintf(w, "  not attributed, %s: %d\n", k, r.Unattributed[k])
	}
}
