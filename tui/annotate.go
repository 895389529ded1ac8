package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ealscope/ealscope/replay/workbench"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/annotations"
)

// The annotation screen: a free-text memory on the left (sanitised, cited source ids
// highlighted), the typed state it asserts as a form on the right. Keyboard first: move
// between fields, number keys pick enumerated values, enter edits and confirms a field (each
// confirmed field is saved as a draft in its own transaction, so a killed session loses at
// most the field being typed), ctrl+s submits and advances. On the disagreements queue the
// same screen adjudicates: the annotators' states side by side, pick one (t) or edit, ctrl+s
// makes the result the accepted annotation.

// AnnotateStart opens the program on the annotation screen.
type AnnotateStart struct {
	// Queue is unannotated, disagreements, mine or all.
	Queue     string
	Annotator string
	RunID     string
	// Blind hides the automatic pre-fill and other annotators' labels.
	Blind bool
	// MemoryID opens the annotation screen at one memory (the chain view's `a`): with RunID,
	// positioned in that run's queue of memories to label (the memory joins it, in order, when
	// it is already labelled); without, alone.
	MemoryID string
}

// AnnotationStore is what the annotation screen reads and writes.
type AnnotationStore = workbench.AnnotationStore

// annotatorOf is who labels when the chain view opens the screen: the annotation command's
// annotator, else the one the options name (cmd/ealscope reads the environment), else
// "annotator". The TUI itself reads no environment.
func annotatorOf(o Options) string {
	if o.Annotate != nil && o.Annotate.Annotator != "" {
		return o.Annotate.Annotator
	}
	if a := strings.TrimSpace(o.Annotator); a != "" {
		return a
	}
	return "annotator"
}

// openAnnotateMsg asks the root to push the annotation screen on one memory.
type openAnnotateMsg struct{ memoryID, runID string }

type annotQueueMsg struct {
	items []runs.AnnotationItem
	// at is the item to open first.
	at  int
	err error
}

type annotTaskMsg struct {
	seq  int
	task runs.AnnotationTask
	err  error
	// refresh: the open memory read again after a save (its score may have changed); the
	// form being edited stays as it is.
	refresh bool
}

type annotSavedMsg struct {
	memoryID string
	label    annotations.Annotation
	err      error
	advance  bool
}

type annotateScreen struct {
	c     *common
	store AnnotationStore
	start AnnotateStart
	blind bool

	queue  []runs.AnnotationItem
	pos    int
	loaded bool
	seq    int
	task   *runs.AnnotationTask
	// schema is the form the task's domain gives (fields, validation, guidelines).
	schema formSchema

	form       annotationForm
	undo       []annotationForm
	rec, field int
	edit       lineInput
	showGuide  bool
	candidate  int
	submitted  int
	notice     string
	textScroll int

	// Saves run one at a time, in the order asked: a field's draft and the ctrl+s that
	// follows it must not race, or the draft could land last. A newer request for the same
	// memory replaces a waiting one (each carries the whole form).
	saving  bool
	pending []saveRequest
}

type saveRequest struct {
	memoryID string
	run      tea.Cmd
}

func newAnnotateScreen(c *common, store AnnotationStore, start AnnotateStart) annotateScreen {
	if start.Queue == "" && start.MemoryID == "" {
		start.Queue = runs.QueueUnannotated
	}
	return annotateScreen{c: c, store: store, start: start, blind: start.Blind}
}

func (s annotateScreen) adjudicating() bool { return s.start.Queue == runs.QueueDisagreements }

func (s annotateScreen) Init() tea.Cmd {
	if s.store == nil {
		return func() tea.Msg { return annotQueueMsg{err: fmt.Errorf("annotation needs a workspace store")} }
	}
	ctx, store, st := s.c.lifetime(), s.store, s.start
	if st.MemoryID != "" && st.RunID == "" {
		items := []runs.AnnotationItem{{MemoryID: st.MemoryID}}
		return func() tea.Msg { return annotQueueMsg{items: items} }
	}
	if st.MemoryID != "" {
		return func() tea.Msg { return queueAt(ctx, store, st) }
	}
	return func() tea.Msg {
		items, err := workbench.AnnotationQueue(ctx, store, st.Queue, st.Annotator, st.RunID)
		return annotQueueMsg{items: items, err: err}
	}
}

// queueAt is the run's queue of memories to label, positioned at st.MemoryID: "next memory"
// from the memory the chain view opened goes on to the run's next one. A memory already
// labelled is not in that queue; it joins it where the queue's order puts it.
func queueAt(ctx context.Context, store AnnotationStore, st AnnotateStart) annotQueueMsg {
	items, err := workbench.AnnotationQueue(ctx, store, runs.QueueUnannotated, st.Annotator, st.RunID)
	if err != nil {
		return annotQueueMsg{err: err}
	}
	for i, it := range items {
		if it.MemoryID == st.MemoryID {
			return annotQueueMsg{items: items, at: i}
		}
	}
	t, err := workbench.AnnotationTask(ctx, store, st.MemoryID)
	if err != nil {
		return annotQueueMsg{err: err}
	}
	at := len(items)
	for i, it := range items {
		if queueOrderLess(t.Item, it) {
			at = i
			break
		}
	}
	items = append(items[:at], append([]runs.AnnotationItem{t.Item}, items[at:]...)...)
	return annotQueueMsg{items: items, at: at}
}

// queueOrderLess is the annotation queue's order (runs.Store.AnnotationQueue): run, case,
// condition, writer run, block, memory.
func queueOrderLess(a, b runs.AnnotationItem) bool {
	switch {
	case a.RunID != b.RunID:
		return a.RunID < b.RunID
	case a.CaseID != b.CaseID:
		return a.CaseID < b.CaseID
	case a.ConditionID != b.ConditionID:
		return a.ConditionID < b.ConditionID
	case a.WriterRunID != b.WriterRunID:
		return a.WriterRunID < b.WriterRunID
	case a.BlockIndex != b.BlockIndex:
		return a.BlockIndex < b.BlockIndex
	}
	return a.MemoryID < b.MemoryID
}

func loadAnnotationCmd(ctx context.Context, store AnnotationStore, seq int, memoryID string, refresh bool) tea.Cmd {
	return func() tea.Msg {
		t, err := workbench.AnnotationTask(ctx, store, memoryID)
		return annotTaskMsg{seq: seq, task: t, err: err, refresh: refresh}
	}
}

// capturing: while a field is being typed every key is text.
func (s annotateScreen) capturing() bool { return s.edit.active }

// open loads queue item i.
func (s *annotateScreen) open(i int) tea.Cmd {
	if len(s.queue) == 0 {
		return nil
	}
	s.pos = clamp(i, 0, len(s.queue)-1)
	s.seq++
	s.task = nil
	return loadAnnotationCmd(s.c.lifetime(), s.store, s.seq, s.queue[s.pos].MemoryID, false)
}

// myLabel is this annotator's label on the open memory.
func (s annotateScreen) myLabel() *annotations.Annotation {
	if s.task == nil {
		return nil
	}
	for i := range s.task.Labels {
		if s.task.Labels[i].Annotator == s.start.Annotator {
			return &s.task.Labels[i]
		}
	}
	return nil
}

// others are the other annotators' labels with a state (the adjudication candidates).
func (s annotateScreen) others() []annotations.Annotation {
	var out []annotations.Annotation
	if s.task == nil {
		return out
	}
	for _, l := range s.task.Labels {
		if l.Annotator != s.start.Annotator && l.State != nil {
			out = append(out, l)
		}
	}
	return out
}

func (s annotateScreen) Update(msg tea.Msg) (annotateScreen, tea.Cmd) {
	switch msg := msg.(type) {
	case annotQueueMsg:
		if msg.err != nil {
			return s, func() tea.Msg { return errMsg{msg.err} }
		}
		s.queue, s.loaded = msg.items, true
		return s, s.open(msg.at)
	case annotTaskMsg:
		if msg.seq != s.seq {
			return s, nil // the annotator moved on before this memory arrived
		}
		if msg.err != nil {
			return s, func() tea.Msg { return errMsg{msg.err} }
		}
		t := msg.task
		s.task = &t
		s.schema = newFormSchema(t.Domain)
		s.queue[s.pos] = t.Item
		if !msg.refresh {
			s.resetForm()
		}
	case annotSavedMsg:
		next := s.saved()
		if msg.err != nil {
			s.notice = "not saved: " + sanitizeLine(msg.err.Error())
			return s, next
		}
		if s.task != nil && s.task.Item.MemoryID == msg.memoryID {
			s.setLabel(msg.label)
		}
		s.notice = fmt.Sprintf("saved %s (%s)", msg.label.Status, msg.label.UpdatedAt)
		if msg.advance {
			s.submitted++
			if s.pos+1 < len(s.queue) {
				return s, tea.Batch(next, s.open(s.pos+1))
			}
			s.notice += " · end of the queue"
		}
		if labelMayScore(msg) && s.task != nil && s.task.Item.MemoryID == msg.memoryID {
			// Still on the memory: read its score again, so "unscored" goes once the
			// label counts.
			return s, tea.Batch(next, loadAnnotationCmd(s.c.lifetime(), s.store, s.seq, msg.memoryID, true))
		}
		return s, next
	case tea.KeyPressMsg:
		return s.handleKey(msg)
	}
	return s, nil
}

// labelMayScore reports a stored label that can change what is scored (a submitted,
// accepted or adjudicated one; drafts never count): the screens showing scores read them
// again when it arrives.
func labelMayScore(msg annotSavedMsg) bool {
	return msg.err == nil && msg.label.Status != annotations.AnnotationDraft
}

func (s *annotateScreen) setLabel(l annotations.Annotation) {
	for i := range s.task.Labels {
		if s.task.Labels[i].Annotator == l.Annotator {
			s.task.Labels[i] = l
			return
		}
	}
	s.task.Labels = append(s.task.Labels, l)
}

// resetForm fills the form for a newly opened memory: the annotator's own current label,
// else (not blind) the automatic reading of the canonical layout, else an empty state.
func (s *annotateScreen) resetForm() {
	s.form, s.undo, s.rec, s.field, s.candidate, s.textScroll = annotationForm{}, nil, 0, 0, 0, 0
	if l := s.myLabel(); l != nil && l.State != nil && !l.Stale {
		s.form = s.schema.fromState(l.State)
		return
	}
	if !s.blind && s.task.Prefill != nil {
		s.form = s.schema.fromState(s.task.Prefill)
	}
}

// change records an undo point before the form changes.
func (s *annotateScreen) change() { s.undo = append(s.undo, s.form.clone()) }

func (s annotateScreen) currentField() formField { return s.schema.fields[s.field] }

// move steps d fields through all records, crossing record boundaries.
func (s *annotateScreen) move(d int) {
	if len(s.form.records) == 0 {
		return
	}
	n := len(s.schema.fields)
	pos := clamp(s.rec*n+s.field+d, 0, len(s.form.records)*n-1)
	s.rec, s.field = pos/n, pos%n
}

// draft saves the form as a draft after a confirmed change (not while adjudicating: the
// adjudicator's result is saved once, on ctrl+s).
func (s *annotateScreen) draft() tea.Cmd {
	if s.adjudicating() || s.task == nil {
		return nil
	}
	return s.saveCmd(annotations.AnnotationDraft, false)
}

// enqueue runs a save now, or after the one in flight.
func (s *annotateScreen) enqueue(r saveRequest) tea.Cmd {
	if !s.saving {
		s.saving = true
		return r.run
	}
	pending := make([]saveRequest, 0, len(s.pending)+1)
	replaced := false
	for _, p := range s.pending {
		if p.memoryID == r.memoryID {
			p, replaced = r, true
		}
		pending = append(pending, p)
	}
	if !replaced {
		pending = append(pending, r)
	}
	s.pending = pending
	return nil
}

// saved starts the next waiting save, if any.
func (s *annotateScreen) saved() tea.Cmd {
	s.saving = false
	if len(s.pending) == 0 {
		return nil
	}
	next := s.pending[0]
	s.pending = append([]saveRequest(nil), s.pending[1:]...)
	s.saving = true
	return next.run
}

func (s *annotateScreen) saveCmd(status string, advance bool) tea.Cmd {
	st, err := s.schema.state(s.form)
	if err != nil {
		s.notice = "not saved: " + sanitizeLine(err.Error())
		return nil
	}
	ctx, store, item := s.c.lifetime(), s.store, s.task.Item
	// The label binds to the hash of exactly the text this screen read; on the disagreements
	// queue a submitted label is the adjudicator's final one.
	read := item.Text
	l := workbench.Label{MemoryID: item.MemoryID, Annotator: s.start.Annotator, State: st, Status: status, Read: &read,
		Adjudicate: s.adjudicating(), Origin: annotations.OriginTUI}
	return s.enqueue(saveRequest{item.MemoryID, func() tea.Msg {
		a, err := workbench.SaveLabel(ctx, store, l)
		return annotSavedMsg{memoryID: item.MemoryID, label: a, err: err, advance: advance}
	}})
}

func (s annotateScreen) handleKey(msg tea.KeyPressMsg) (annotateScreen, tea.Cmd) {
	if s.edit.active {
		switch s.edit.update(msg) {
		case inputSubmitted:
			if s.form.records[s.rec][s.currentField().key] != strings.TrimSpace(s.edit.value) {
				s.change()
				s.form.records[s.rec][s.currentField().key] = strings.TrimSpace(s.edit.value)
				return s, s.draft()
			}
		}
		return s, nil
	}
	if s.showGuide {
		s.showGuide = false // any key closes the guidelines
		return s, nil
	}
	s.notice = ""
	k := &s.c.keys.Annotate
	if s.task == nil {
		return s, nil
	}
	switch {
	case key.Matches(msg, k.Save):
		return s, s.saveCmd(annotations.AnnotationSubmitted, true)
	case key.Matches(msg, k.Accept):
		if s.adjudicating() {
			return s, s.saveCmd(annotations.AnnotationSubmitted, true) // adjudication accepts on save
		}
		return s, s.saveCmd(annotations.AnnotationAccepted, true)
	case key.Matches(msg, k.NextField):
		s.move(1)
	case key.Matches(msg, k.PrevField):
		s.move(-1)
	case key.Matches(msg, k.Guidelines):
		s.showGuide = true
	case key.Matches(msg, k.Undo):
		if n := len(s.undo); n > 0 {
			s.form, s.undo = s.undo[n-1], s.undo[:n-1]
			s.rec = clamp(s.rec, 0, max(len(s.form.records)-1, 0))
			return s, s.draft()
		}
		s.notice = "nothing to undo"
	case key.Matches(msg, k.AddRecord):
		s.change()
		at := min(s.rec+1, len(s.form.records))
		s.form.records = append(s.form.records[:at], append([]formRecord{s.schema.newRecord()}, s.form.records[at:]...)...)
		s.rec, s.field = at, 0
	case key.Matches(msg, k.RemoveRecord):
		if len(s.form.records) == 0 {
			return s, nil
		}
		s.change()
		s.form.records = append(s.form.records[:s.rec], s.form.records[s.rec+1:]...)
		s.rec, s.field = clamp(s.rec, 0, max(len(s.form.records)-1, 0)), 0
		return s, s.draft()
	case key.Matches(msg, k.Prefill):
		if s.blind || s.task.Prefill == nil {
			s.notice = "no automatic reading here (blind mode, or the text is not in the canonical layout)"
			return s, nil
		}
		s.change()
		s.form = s.schema.fromState(s.task.Prefill)
		s.rec, s.field = 0, 0
		return s, s.draft()
	case key.Matches(msg, k.Blind):
		s.blind = !s.blind
	case key.Matches(msg, k.NextCandidate):
		if n := len(s.others()); n > 0 && !s.blind {
			s.candidate = (s.candidate + 1) % n
		}
	case key.Matches(msg, k.TakeCandidate):
		others := s.others()
		if s.blind || len(others) == 0 {
			s.notice = "no other label to take"
			return s, nil
		}
		s.change()
		s.form = s.schema.fromState(others[s.candidate%len(others)].State)
		s.rec, s.field = 0, 0
		return s, s.draft()
	case key.Matches(msg, k.NextMemory):
		return s, s.open(s.pos + 1)
	case key.Matches(msg, k.PrevMemory):
		return s, s.open(s.pos - 1)
	case key.Matches(msg, k.ScrollText):
		s.textScroll++
	case key.Matches(msg, k.Edit):
		if len(s.form.records) == 0 {
			s.notice = "no record: press " + k.AddRecord.Help().Key + " to add one"
			return s, nil
		}
		f := s.currentField()
		if f.kind == kindEnum {
			// enter confirms the value the number keys picked and moves on; it never changes
			// the value (1-9 do).
			v := s.form.records[s.rec][f.key]
			if v == "" {
				v = "∅"
			}
			s.notice = sanitizeLine(f.label + " = " + v + " (confirmed)")
			s.move(1)
			return s, nil
		}
		s.edit.start(f.label+": ", s.form.records[s.rec][f.key])
	default:
		if t := msg.Text; len(t) == 1 && t[0] >= '1' && t[0] <= '9' && len(s.form.records) > 0 && s.currentField().kind == kindEnum {
			n, _ := strconv.Atoi(t)
			return s, s.pick(n - 1)
		}
	}
	return s, nil
}

func (s annotateScreen) enumIndex() int {
	f := s.currentField()
	for i, o := range f.options {
		if o == s.form.records[s.rec][f.key] {
			return i
		}
	}
	return -1
}

// pick sets the current enumerated field to option i (a number key past the options does
// nothing).
func (s *annotateScreen) pick(i int) tea.Cmd {
	f := s.currentField()
	if i < 0 || i >= len(f.options) {
		return nil
	}
	if s.form.records[s.rec][f.key] == f.options[i] {
		return nil
	}
	s.change()
	s.form.records[s.rec][f.key] = f.options[i]
	return s.draft()
}
