package runs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/procurement"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs/annotations"
	"github.com/ealscope/ealscope/runs/rundir"
)

// annotationFixture is a real run made by ealscope's pipeline (scripted writer, built-in
// executor) over two built-in cases with the free-text writer conditions and the faithful
// typed exact arm, imported into a fresh workspace.
type annotationFixture struct {
	s      *Store
	path   string
	runDir string
	runID  string
	// mem is the one-shot free-text memory of the first case, at its block; c its case.
	mem   AnnotationItem
	c     *engine.Case
	chain ChainKey
}

func newAnnotationFixture(t testing.TB) annotationFixture {
	t.Helper()
	ctx := context.Background()
	cases := builtinCases(t)
	ids := []string{cases[0].ID, cases[1].ID}
	dir := filepath.Join(t.TempDir(), "run")
	scriptedRun(t, dir, replay.BuiltinCorpus, ids, "one_shot_text,incremental_text,faithful_typed")
	s, path := openStore(t)
	f := annotationFixture{s: s, path: path, runDir: dir, runID: importOne(t, s, dir).RunID}
	queue, err := s.AnnotationQueue(ctx, QueueAll, "", f.runID)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range queue {
		if it.CaseID == ids[0] && it.ConditionID == "one_shot_text" {
			f.mem, f.chain = it, it.Chain
		}
	}
	if f.mem.MemoryID == "" {
		t.Fatalf("no one-shot free-text memory among %d queued", len(queue))
	}
	f.c = findCase(t, cases, ids[0])
	return f
}

// disagree has two annotators label the fixture's memory differently: alice submits the
// ledger's exact state (returned), bob one with a record widened.
func (f annotationFixture) disagree(t testing.TB) (exact map[string]any) {
	t.Helper()
	exact, wide := ledgerState(t, f.c, f.mem.BlockIndex), broadened(t, f.c, f.mem.BlockIndex)
	for ann, st := range map[string]map[string]any{"alice": exact, "bob": wide} {
		if _, err := f.s.SaveAnnotation(context.Background(), AnnotationInput{MemoryID: f.mem.MemoryID, Annotator: ann, State: st, Status: annotations.AnnotationSubmitted}); err != nil {
			t.Fatal(err)
		}
	}
	return exact
}

// agreement is the agreement report over the fixture's run; an error fails the test.
func (f annotationFixture) agreement(t testing.TB) annotations.AgreementReport {
	t.Helper()
	rep, err := f.s.Agreement(context.Background(), f.runID)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// ledgerState is the exact typed state of the ledger at a block: what a perfect annotator
// reads from a faithful memory.
func ledgerState(t testing.TB, c *engine.Case, block int) map[string]any {
	t.Helper()
	recs, err := dom.Replay(c, block)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := pyjson.Retree(dom.TypedPayload(recs))
	if err != nil {
		t.Fatal(err)
	}
	return tree.(map[string]any)
}

// broadened widens every active record's amount and categories to whatever any probe asks,
// which grants at least one probe the ledger denies on amount or category.
func broadened(t testing.TB, c *engine.Case, block int) map[string]any {
	t.Helper()
	recs, err := dom.Replay(c, block)
	if err != nil {
		t.Fatal(err)
	}
	cats := map[string]bool{}
	for _, p := range c.Probes {
		cats[p.Request.(procurement.Transaction).Category] = true
	}
	var envs []*procurement.Envelope
	for _, r := range recs {
		e := *r.(*procurement.Envelope)
		if e.State == "active" {
			n := int64(1 << 40)
			e.Scope.MaxAmount = &n
			e.Scope.AllowedCategories = engine.SortedSet(cats)
		}
		envs = append(envs, &e)
	}
	tree, err := pyjson.Retree(procurement.TypedPayloadOf(envs))
	if err != nil {
		t.Fatal(err)
	}
	return tree.(map[string]any)
}

type memScoreRow struct {
	scoredFrom string
	unscored   sql.NullString
	exact      sql.NullInt64
	forms      sql.NullInt64
}

func scoreAt(t testing.TB, s *Store, memoryID string, block int) memScoreRow {
	t.Helper()
	var r memScoreRow
	if err := s.db.QueryRow(`SELECT scored_from, unscored_reason, exact, forms_false_authority FROM memory_scores WHERE memory_id = ? AND block_index = ?`, memoryID, block).
		Scan(&r.scoredFrom, &r.unscored, &r.exact, &r.forms); err != nil {
		t.Fatal(err)
	}
	return r
}

func chainFacts(t testing.TB, s *Store, key ChainKey) (ffa sql.NullInt64, needs int, flagged int) {
	t.Helper()
	if err := s.db.QueryRow(`SELECT first_false_authority_block, needs_annotation, (SELECT COUNT(*) FROM chain_blocks WHERE chain_pk = c.chain_pk AND first_false_authority = 1) FROM chains c WHERE chain_pk = ?`, key).
		Scan(&ffa, &needs, &flagged); err != nil {
		t.Fatal(err)
	}
	return
}

// TestAnnotationAcceptanceRules walks one free-text memory through every EAL-Bench outcome
// of _resolve_annotations, checking the reason name, the score source and the chain facts
// after each committed save.
func TestAnnotationAcceptanceRules(t *testing.T) {
	ctx := context.Background()
	f := newAnnotationFixture(t)
	s, m := f.s, f.mem
	want := func(step, reason string) {
		t.Helper()
		got := scoreAt(t, s, m.MemoryID, m.BlockIndex)
		if reason == "" {
			if got.unscored.Valid || got.scoredFrom != annotations.ScoredFreeTextAnnotation {
				t.Fatalf("%s: scored_from %s, unscored %v; want scored from the annotation", step, got.scoredFrom, got.unscored)
			}
			return
		}
		if got.unscored.String != reason || got.scoredFrom != ScoredFreeTextNone {
			t.Fatalf("%s: unscored %q (scored_from %s), want %q", step, got.unscored.String, got.scoredFrom, reason)
		}
	}
	want("imported", ReasonMissingAnnot)
	if _, needs, _ := chainFacts(t, s, f.chain); needs != 1 {
		t.Fatal("an unannotated free-text chain must need annotation")
	}
	exact := ledgerState(t, f.c, m.BlockIndex)
	wide := broadened(t, f.c, m.BlockIndex)
	save := func(ann, status string, state map[string]any, hash string) annotations.Annotation {
		t.Helper()
		a, err := s.SaveAnnotation(ctx, AnnotationInput{MemoryID: m.MemoryID, Annotator: ann, State: state, Status: status, SourceContentHash: hash})
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	a := save("alice", annotations.AnnotationDraft, exact, m.ContentHash)
	if a.AnnotatorKind != annotations.AnnotatorHuman || a.SchemaVersion != "3" || a.SourceContentHash != m.ContentHash || a.CreatedAt == "" || a.Stale {
		t.Fatalf("stored label %+v", a)
	}
	want("draft", "annotation_not_accepted:draft")
	save("bob", annotations.AnnotationSubmitted, wide, m.ContentHash)
	want("draft+submitted", "annotation_not_accepted:draft,submitted")

	// An accepted label that read other text: EAL-Bench refuses to score, and we show it stale.
	a = save("alice", annotations.AnnotationAccepted, exact, strings.Repeat("0", 64))
	if !a.Stale {
		t.Fatal("a label bound to another hash must be stale")
	}
	want("hash mismatch", annotations.ReasonAnnotationHashMismatch)

	save("alice", annotations.AnnotationAccepted, exact, m.ContentHash)
	want("accepted", "")
	if got := scoreAt(t, s, m.MemoryID, m.BlockIndex); got.exact.Int64 != 1 || got.forms.Int64 != 0 {
		t.Fatalf("the ledger's own state must score exact and form nothing: %+v", got)
	}
	if _, needs, _ := chainFacts(t, s, f.chain); needs != 0 {
		t.Fatal("an accepted annotation settles the chain's need for annotation")
	}
	// Identical accepted states from two annotators are one reading, not a conflict.
	save("carol", annotations.AnnotationAccepted, exact, m.ContentHash)
	want("two identical accepted", "")

	save("bob", annotations.AnnotationAccepted, wide, m.ContentHash)
	want("conflict", annotations.ReasonConflictingAnnotations)
	if ffa, _, _ := chainFacts(t, s, f.chain); ffa.Valid {
		t.Fatal("an unscored memory cannot form false authority")
	}

	// Adjudication picks bob's broadened reading: the memory now forms false authority at its
	// block, which becomes the chain's first false-authority block.
	adj, err := s.Adjudicate(ctx, m.MemoryID, "dana", wide, "")
	if err != nil {
		t.Fatal(err)
	}
	if adj.Status != annotations.AnnotationAccepted || adj.Origin != annotations.OriginAdjudication {
		t.Fatalf("adjudicated label %+v", adj)
	}
	want("adjudicated", "")
	got := scoreAt(t, s, m.MemoryID, m.BlockIndex)
	if got.forms.Int64 != 1 || got.exact.Int64 != 0 {
		t.Fatalf("the broadened reading must form false authority: %+v", got)
	}
	ffa, needs, flagged := chainFacts(t, s, f.chain)
	if !ffa.Valid || int(ffa.Int64) != m.BlockIndex || needs != 0 || flagged != 1 {
		t.Fatalf("chain: first false authority %v (want %d), needs %d, flagged blocks %d", ffa, m.BlockIndex, needs, flagged)
	}
	labels, err := s.Annotations(ctx, m.MemoryID)
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, l := range labels {
		if l.Status == annotations.AnnotationAccepted {
			accepted++
		}
	}
	if accepted != 1 {
		t.Fatalf("adjudication leaves exactly one accepted label, got %d", accepted)
	}
	// The summary and the chain list read the same stored facts.
	doc, err := s.Summary(ctx, f.runID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sm := range doc.Memories {
		if sm.MemoryID == m.MemoryID && (sm.ScoredFrom != annotations.ScoredFreeTextAnnotation || sm.FormsFalseAuthority == nil || !*sm.FormsFalseAuthority) {
			t.Fatalf("summary memory %+v", sm)
		}
	}
	forming, err := s.ChainCount(ctx, ChainFilter{RunID: f.runID, Condition: "one_shot_text", Forming: true})
	if err != nil || forming < 1 {
		t.Fatalf("forming one-shot text chains: %d, %v", forming, err)
	}
	// The attribution rows of trials on this memory now have an estimable formation.
	var estimable int
	if err := s.db.QueryRow(`SELECT COUNT(*) FROM attribution a JOIN trials t ON t.trial_pk = a.trial_pk WHERE t.memory_id = ? AND a.formation_estimable = 1`, m.MemoryID).Scan(&estimable); err != nil {
		t.Fatal(err)
	}
	if estimable == 0 {
		t.Fatal("attribution on an annotated memory must be estimable")
	}
	requireIntegrity(t, s, "after the label changes")
}

// TestAnnotationsBeforeImport: labels imported before their run apply when the run arrives
// (the deriver consults them at import).
func TestAnnotationsBeforeImport(t *testing.T) {
	ctx := context.Background()
	f := newAnnotationFixture(t)
	if _, err := f.s.SaveAnnotation(ctx, AnnotationInput{MemoryID: f.mem.MemoryID, Annotator: "alice", State: ledgerState(t, f.c, f.mem.BlockIndex), Status: annotations.AnnotationAccepted}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "child")
	if _, err := f.s.ExportAnnotations(ctx, f.runID, out, "test"); err != nil {
		t.Fatal(err)
	}
	s2, _ := openStore(t)
	rep, err := s2.ImportAnnotations(ctx, out, ImportAnnotationsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.UnknownMemories != 1 || rep.Rescored != 0 {
		t.Fatalf("%+v", rep)
	}
	if _, err := s2.Import(ctx, []string{f.runDir}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := scoreAt(t, s2, f.mem.MemoryID, f.mem.BlockIndex); got.scoredFrom != annotations.ScoredFreeTextAnnotation || got.exact.Int64 != 1 {
		t.Fatalf("%+v", got)
	}
}

func feq(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > 1e-12 {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func envs(t *testing.T, status, vendor string, max int64, currency string) []engine.Record {
	t.Helper()
	tree := map[string]any{"schema_version": "3", "authorizations": []any{map[string]any{
		"authorization_id": "auth_a", "issuer": "cfo", "grantee": "agent", "effect": "permit_exception", "action": "submit_order", "status": status,
		"valid_from": "2026-01-01T00:00:00Z", "valid_until": "2026-12-31T00:00:00Z", "supersedes": nil, "source_turn_ids": []any{"src_1"},
		"scope": map[string]any{"vendor": vendor, "allowed_categories": []any{"laptops"}, "max_amount": max, "currency": currency},
	}}}
	e, _, err := engine.ParseAnnotationState(procurement.Domain{}, tree)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestAgreementHandComputed checks the figures against examples computed by hand. Units are
// the 7 agreement fields of the one record auth_a (no case: no formation units).
func TestAgreementHandComputed(t *testing.T) {
	t.Run("two annotators: Cohen's kappa", func(t *testing.T) {
		// A and B differ only on max_amount (100 vs 1000): 6 of 7 units agree, p_o = 6/7.
		// A's values: active, "V", ["laptops"], 100, "USD", from, until (each 1/7);
		// B's the same but 1000 for 100. Shared values: 6, each 1/7 x 1/7, so
		// p_e = 6/49 and kappa = (6/7 - 6/49) / (1 - 6/49) = (36/49) / (43/49) = 36/43.
		rep := annotations.ComputeAgreement([]annotations.LabelledMemory{{MemoryID: "m1", Domain: procurement.Domain{}, States: map[string][]engine.Record{
			"A": envs(t, "active", "V", 100, "USD"), "B": envs(t, "active", "V", 1000, "USD")}}})
		if rep.All.Method != annotations.MethodCohenKappa || rep.All.Units != 7 || rep.All.Agreed != 6 {
			t.Fatalf("%+v", rep.All)
		}
		feq(t, "observed", rep.All.Observed, 6.0/7)
		feq(t, "kappa", rep.All.Coefficient, 36.0/43)
		feq(t, "pair kappa", rep.Pairs[0].Kappa, 36.0/43)
		feq(t, "memory kappa", rep.Memories[0].Fields.Coefficient, 36.0/43)
		if len(rep.Memories[0].Disagreements) != 1 || rep.Memories[0].Disagreements[0].Field != "scope.max_amount" ||
			!reflect.DeepEqual(rep.Memories[0].Disagreements[0].Values, map[string]string{"A": "100", "B": "1000"}) {
			t.Fatalf("disagreements %+v", rep.Memories[0].Disagreements)
		}
	})
	t.Run("three annotators: Krippendorff's alpha", func(t *testing.T) {
		// A and B: active, V, ["laptops"], 100, USD, from, until. C: revoked and EUR instead.
		// Each unit has 3 values; every ordered pair within a unit weighs 1/(3-1) = 1/2.
		// status: o(active,active)=1, o(active,revoked)=o(revoked,active)=1; currency the same
		// with USD/EUR; the 5 agreeing units give o(v,v)=3 each.
		// Marginals: active 2, revoked 1, USD 2, EUR 1, and 3 for each of the 5 others: n = 21.
		// Observed disagreement = 4; expected = n^2 - sum n_c^2 = 441 - (4+1+4+1+5*9) = 386.
		// alpha = 1 - (n-1) * 4 / 386 = 1 - 80/386 = 153/193.
		rep := annotations.ComputeAgreement([]annotations.LabelledMemory{{MemoryID: "m1", Domain: procurement.Domain{}, States: map[string][]engine.Record{
			"A": envs(t, "active", "V", 100, "USD"), "B": envs(t, "active", "V", 100, "USD"), "C": envs(t, "revoked", "V", 100, "EUR")}}})
		if rep.All.Method != annotations.MethodKrippendorffAlpha || rep.All.Units != 7 || rep.All.Agreed != 5 || rep.All.Pairable != 21 {
			t.Fatalf("%+v", rep.All)
		}
		feq(t, "alpha", rep.All.Coefficient, 153.0/193)
		feq(t, "observed", rep.All.Observed, 5.0/7)
		// Pairwise: A-B agree everywhere with one shared value set: p_e = 7 x (1/7)^2 = 1/7,
		// p_o = 1, kappa = (1 - 1/7)/(1 - 1/7) = 1.
		feq(t, "kappa A-B", rep.Pairs[0].Kappa, 1)
	})
	t.Run("missing record", func(t *testing.T) {
		// B has no record: all 7 units disagree (A's values vs "<no record>"), p_o = 0.
		// A's 7 values are distinct (1/7 each); B's single value appears nowhere in A: p_e = 0,
		// kappa = (0 - 0)/(1 - 0) = 0.
		rep := annotations.ComputeAgreement([]annotations.LabelledMemory{{MemoryID: "m1", Domain: procurement.Domain{}, States: map[string][]engine.Record{
			"A": envs(t, "active", "V", 100, "USD"), "B": nil}}})
		feq(t, "kappa", rep.All.Coefficient, 0)
		if rep.All.Agreed != 0 || rep.All.Units != 7 {
			t.Fatalf("%+v", rep.All)
		}
	})
}

// TestAgreementFormationUnits measures agreement on a real memory: two annotators who agree
// on everything but one widened record agree on formation for every probe but those the
// widening grants.
func TestAgreementFormationUnits(t *testing.T) {
	ctx := context.Background()
	f := newAnnotationFixture(t)
	exact := f.disagree(t)
	rep := f.agreement(t)
	if len(rep.Memories) != 1 || rep.Formation.Units != len(f.c.Probes) || rep.Formation.Agreed == rep.Formation.Units {
		t.Fatalf("formation figures %+v over %d probes", rep.Formation, len(f.c.Probes))
	}
	queue, err := f.s.AnnotationQueue(ctx, QueueDisagreements, "", f.runID)
	if err != nil || len(queue) != 1 || queue[0].MemoryID != f.mem.MemoryID {
		t.Fatalf("disagreements queue %+v %v", queue, err)
	}
	if _, err := f.s.Adjudicate(ctx, f.mem.MemoryID, "dana", exact, ""); err != nil {
		t.Fatal(err)
	}
	if queue, _ = f.s.AnnotationQueue(ctx, QueueDisagreements, "", f.runID); len(queue) != 0 {
		t.Fatalf("adjudication settles the disagreement: %+v", queue)
	}
	mine, _ := f.s.AnnotationQueue(ctx, QueueMine, "bob", f.runID)
	todo, _ := f.s.AnnotationQueue(ctx, QueueUnannotated, "bob", f.runID)
	all, _ := f.s.AnnotationQueue(ctx, QueueAll, "", f.runID)
	if len(mine) != 1 || len(todo) != len(all)-1 {
		t.Fatalf("mine %d, unannotated %d, all %d", len(mine), len(todo), len(all))
	}
}

// TestAnnotationExportImportRoundTrip exports one workspace's labels as an EAL-Bench child
// run and imports them into another workspace holding the same source run: the states,
// hashes, statuses, ids and the resulting scores are identical.
func TestAnnotationExportImportRoundTrip(t *testing.T) {
	ctx := context.Background()
	f := newAnnotationFixture(t)
	queue, err := f.s.AnnotationQueue(ctx, QueueAll, "", f.runID)
	if err != nil {
		t.Fatal(err)
	}
	for i, it := range queue[:3] {
		st := ledgerState(t, findCase(t, builtinCases(t), it.CaseID), it.BlockIndex)
		status := annotations.AnnotationAccepted
		if i == 2 {
			status = annotations.AnnotationSubmitted
		}
		if _, err := f.s.SaveAnnotation(ctx, AnnotationInput{MemoryID: it.MemoryID, Annotator: "alice", State: st, Status: status}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.s.SaveAnnotation(ctx, AnnotationInput{MemoryID: queue[3].MemoryID, Annotator: "alice", State: procurement.EmptyTyped(), Status: annotations.AnnotationDraft}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "annotations-run")
	exp, err := f.s.ExportAnnotations(ctx, f.runID, out, "ealscope annotate export")
	if err != nil {
		t.Fatal(err)
	}
	if exp.Rows != 3 || exp.Accepted != 2 || exp.Unaccepted != 1 || exp.SkippedDrafts != 1 {
		t.Fatalf("%+v", exp)
	}
	run, err := rundir.Open(out, rundir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := run.Manifest
	ext, _ := m["extractor"].(map[string]any)
	counts, _ := m["counts"].(map[string]any)
	src, _ := m["source_run"].(map[string]any)
	if m["study"] != AnnotationStudy || ext["protocol_id"] != HumanAnnotationProtocol || ext["extractor_version"] != "human" || ext["tool_name"] != nil ||
		fmt.Sprintf("%v %v %v", counts["annotations"], counts["accepted"], counts["unaccepted"]) != "3 2 1" || src["manifest_sha256"] == "" {
		t.Fatalf("manifest %v", m)
	}
	row := run.Files[AnnotationsArtifact][0].Tree
	for _, k := range []string{"annotation_id", "memory_id", "chain_id", "case_id", "condition_id", "writer_model", "extractor_model", "source_content_hash", "status", "detail",
		"extracted_state", "raw_arguments", "extractor_version", "temperature", "schema_version", "domain_id", "source_manifest_sha256", "call_id", "extractor"} {
		if _, ok := row[k]; !ok {
			t.Fatalf("row lacks EAL-Bench key %s: %v", k, row)
		}
	}

	s2, _ := openStore(t)
	if _, err := s2.Import(ctx, []string{f.runDir}, ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	imp, err := s2.ImportAnnotations(ctx, out, ImportAnnotationsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if imp.Rows != 3 || imp.UnknownMemories != 0 || imp.Rescored != 3 || !reflect.DeepEqual(imp.Annotators, []string{"alice"}) {
		t.Fatalf("%+v", imp)
	}
	for _, it := range queue[:3] {
		a, _ := f.s.Annotations(ctx, it.MemoryID)
		b, _ := s2.Annotations(ctx, it.MemoryID)
		if len(a) != 1 || len(b) != 1 {
			t.Fatalf("labels %d vs %d", len(a), len(b))
		}
		if a[0].AnnotationID != b[0].AnnotationID || a[0].SourceContentHash != b[0].SourceContentHash || a[0].Status != b[0].Status ||
			pyjson.MustCanonicalJSON(a[0].State) != pyjson.MustCanonicalJSON(b[0].State) || b[0].AnnotatorKind != annotations.AnnotatorHuman || b[0].Stale {
			t.Fatalf("round trip changed the label:\n%+v\n%+v", a[0], b[0])
		}
		if x, y := scoreAt(t, f.s, it.MemoryID, it.BlockIndex), scoreAt(t, s2, it.MemoryID, it.BlockIndex); x != y {
			t.Fatalf("scores differ: %+v vs %+v", x, y)
		}
	}
	// Importing the same child run again changes nothing.
	again, err := s2.ImportAnnotations(ctx, out, ImportAnnotationsOptions{})
	if err != nil || again.Rescored != 0 {
		t.Fatalf("%+v %v", again, err)
	}
	// A tampered file is refused by the manifest's sha256, naming the file and field.
	data, _ := os.ReadFile(filepath.Join(out, "memory_annotations.jsonl"))
	os.WriteFile(filepath.Join(out, "memory_annotations.jsonl"), append(data, ' '), 0o644)
	var ve *rundir.VerifyError
	if _, err := s2.ImportAnnotations(ctx, out, ImportAnnotationsOptions{}); !errors.As(err, &ve) || ve.Field != "files.memory_annotations.sha256" {
		t.Fatalf("tampered import: %v", err)
	}
}

// TestImportExtractorRun reads an EAL-Bench LLM extractor child run (statuses accepted and
// invalid_response) and files the extractor as an annotator, so a person's agreement with it
// can be measured; a broken extracted_state is reported with its file, line and field.
func TestImportExtractorRun(t *testing.T) {
	ctx := context.Background()
	f := newAnnotationFixture(t)
	queue, _ := f.s.AnnotationQueue(ctx, QueueAll, "", f.runID)
	exact := ledgerState(t, f.c, f.mem.BlockIndex)
	if _, err := f.s.SaveAnnotation(ctx, AnnotationInput{MemoryID: f.mem.MemoryID, Annotator: "alice", State: exact, Status: annotations.AnnotationSubmitted}); err != nil {
		t.Fatal(err)
	}
	other := queue[0]
	if other.MemoryID == f.mem.MemoryID {
		other = queue[1]
	}
	write := func(dir string, state any) {
		t.Helper()
		w, err := rundir.Create(dir, map[string]any{"study": AnnotationStudy, "domain_id": "procurement", "artifact_schema_versions": map[string]any{"memory_annotations": 1},
			"extractor": map[string]any{"protocol_id": "procurement_free_text_annotation_v1", "extractor_version": "free_text_current_state_v2", "tool_name": "extract_current_authorization_state"}})
		if err != nil {
			t.Fatal(err)
		}
		ext := map[string]any{"target_id": "extractor_gpt", "provider": "openai", "requested_model": "gpt-test", "resolved_model": "gpt-test-2026", "response_model": "gpt-test-2026",
			"effective_parameters": map[string]any{"temperature": 0.0}}
		rows := []any{
			map[string]any{"annotation_id": annotations.AnnotationID("free_text_current_state_v2", f.mem.MemoryID, "gpt-test-2026"), "memory_id": f.mem.MemoryID, "source_content_hash": f.mem.ContentHash,
				"status": "accepted", "detail": "accepted", "extracted_state": state, "raw_arguments": "{}", "extractor_version": "free_text_current_state_v2", "temperature": 0.0,
				"schema_version": 1, "domain_id": "procurement", "call_id": "annotation-call-0123", "extractor": ext, "extractor_model": "gpt-test-2026"},
			map[string]any{"annotation_id": annotations.AnnotationID("free_text_current_state_v2", other.MemoryID, "gpt-test-2026"), "memory_id": other.MemoryID, "source_content_hash": other.ContentHash,
				"status": "invalid_response", "detail": "tool arguments are not valid JSON", "extracted_state": nil, "raw_arguments": "{", "extractor_version": "free_text_current_state_v2",
				"temperature": 0.0, "schema_version": 1, "domain_id": "procurement", "call_id": "annotation-call-4567", "extractor": ext, "extractor_model": "gpt-test-2026"},
		}
		if err := w.Append(AnnotationsArtifact, rows...); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(rundir.StatusCompleted, map[string]any{"counts": map[string]any{"annotations": 2, "accepted": 1, "unaccepted": 1}}); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "extractor")
	write(dir, exact)
	rep, err := f.s.ImportAnnotations(ctx, dir, ImportAnnotationsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Accepted != 1 || rep.Unaccepted != 1 || !reflect.DeepEqual(rep.Annotators, []string{"gpt-test"}) {
		t.Fatalf("%+v", rep)
	}
	if got := scoreAt(t, f.s, f.mem.MemoryID, f.mem.BlockIndex); got.scoredFrom != annotations.ScoredFreeTextAnnotation {
		t.Fatalf("an accepted extraction scores the memory, as in EAL-Bench: %+v", got)
	}
	if got := scoreAt(t, f.s, other.MemoryID, other.BlockIndex); got.unscored.String != "annotation_not_accepted:invalid_response" {
		t.Fatalf("%+v", got)
	}
	agr := f.agreement(t)
	if len(agr.Pairs) != 1 || agr.Pairs[0].A != "alice" || agr.Pairs[0].B != "gpt-test" || agr.Pairs[0].Observed == nil || *agr.Pairs[0].Observed != 1 {
		t.Fatalf("human-extractor agreement %+v", agr.Pairs)
	}

	bad := map[string]any{"schema_version": "3", "authorizations": []any{map[string]any{"authorization_id": "a"}}}
	dir2 := filepath.Join(t.TempDir(), "broken")
	write(dir2, bad)
	_, err = f.s.ImportAnnotations(ctx, dir2, ImportAnnotationsOptions{})
	var ve *rundir.VerifyError
	if !errors.As(err, &ve) || ve.Line != 1 || !strings.HasPrefix(ve.Field, "extracted_state") {
		t.Fatalf("broken state: %v", err)
	}
}
