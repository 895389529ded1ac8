// Package audience reads and writes audience sidecars (docs/AUDIENCE.md): one JSON file per
// corpus, keyed by case id, saying who the principals are, which channels exist and who takes
// part in them, the channel of each turn whose corpus names none, who asks each probe and
// where, the explicit audience grants, and, hidden from every policy, the ground truth the
// lab measures against. The reader is strict: an unknown key, turn, probe, principal or
// channel, or a grant by a principal who cannot grant, is an error naming the file, the case
// and the field. Nothing here does I/O.
package audience

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// Format is the sidecar's format tag.
const Format = "ealscope_audience_v1"

// MaxBytes bounds a sidecar file (the 10,000-case generated sidecar is about 40 MB).
const MaxBytes = 256 << 20

// File is a parsed sidecar, not yet checked against its corpus.
type File struct {
	Name          string
	DomainID      string
	CorpusVersion string
	// Cases are the entries by case id; Order the case ids in sorted order.
	Cases map[string]*Entry
	Order []string
}

// Entry is one case's sidecar entry.
type Entry struct {
	Audience engine.CaseAudience
	Truth    Truth
	// turnChannelOrder keeps the turn_channels keys for deterministic checks.
	turnChannelOrder []string
}

// Truth is the hidden ground truth of a case: never shown to a policy, read only by the lab's
// measures.
type Truth struct {
	// Scenarios name what the case exercises (private_grant, merged_narrowing,
	// widening_grant, unresolved_viewer).
	Scenarios []string
	// Records is the true audience of each ledger record at the final block, before grants.
	Records map[string]engine.Audience
	// MustNotLeak are strings that may reach only their audience.
	MustNotLeak []Leak
	// Requests says, per request id, who is really asking and whether that principal is
	// entitled to the requested action's grant.
	Requests map[string]RequestTruth
	// DecoyTurns relay "everyone can use this": text that must never widen an audience.
	DecoyTurns []string
}

// Leak is a string and the audience it may reach.
type Leak struct {
	Text     string
	Audience engine.Audience
}

// RequestTruth is who really asks a request and whether they are entitled to it.
type RequestTruth struct {
	TruePrincipal string
	Entitled      bool
}

// Error is a sidecar error: the file, the case (when one) and the field path.
type Error struct {
	File, Case, Field, Msg string
}

func (e *Error) Error() string {
	s := e.File
	if e.Case != "" {
		s += ": case " + e.Case
	}
	if e.Field != "" {
		s += ": field " + e.Field
	}
	return s + ": " + e.Msg
}

// reader walks a JSON tree, keeping the first error.
type reader struct {
	file, caseID string
	err          error
}

func (r *reader) fail(path, format string, args ...any) {
	if r.err == nil {
		r.err = &Error{File: r.file, Case: r.caseID, Field: path, Msg: fmt.Sprintf(format, args...)}
	}
}

func (r *reader) set(err error) {
	if r.err != nil || err == nil {
		return
	}
	var fe *engine.FieldError
	if errors.As(err, &fe) {
		r.fail(fe.Path, "%s", fe.Msg)
		return
	}
	r.fail("", "%s", err.Error())
}

func (r *reader) obj(path string, v any, required []string, optional ...string) map[string]any {
	if r.err != nil {
		return nil
	}
	m, err := engine.Obj(path, v)
	if err == nil {
		err = engine.ExactKeys(path, m, required, optional...)
	}
	r.set(err)
	if r.err != nil {
		return nil
	}
	return m
}

// oneOf reads an object that gives exactly one of the keys a and b, and returns that key and
// its value ("" after an error, so the caller reads nothing more).
func (r *reader) oneOf(path string, v any, a, b string) (string, any) {
	m := r.obj(path, v, nil, a, b)
	switch {
	case r.err != nil:
		return "", nil
	case len(m) != 1:
		r.fail(path, "give exactly one of %s or %s", a, b)
		return "", nil
	case m[a] != nil:
		return a, m[a]
	default:
		return b, m[b]
	}
}

// dict reads an object whose keys are ids (any key allowed).
func (r *reader) dict(path string, v any) map[string]any {
	if r.err != nil {
		return nil
	}
	m, err := engine.Obj(path, v)
	r.set(err)
	return m
}

func (r *reader) str(path string, v any) string {
	if r.err != nil {
		return ""
	}
	s, err := engine.NonEmptyStr(path, v)
	r.set(err)
	return s
}

func (r *reader) boolean(path string, v any) bool {
	b, ok := v.(bool)
	if !ok && r.err == nil {
		r.fail(path, "expected true or false")
	}
	return b
}

func (r *reader) list(path string, v any) []any {
	if r.err != nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		r.fail(path, "expected a list")
	}
	return l
}

func (r *reader) strs(path string, v any) []string {
	var out []string
	for i, x := range r.list(path, v) {
		out = append(out, r.str(engine.JoinPath(path, i), x))
	}
	return out
}

// Parse reads a sidecar's shape: keys, types, enumerations, unique ids. References to the
// corpus (turns, probes, records) and between parts of an entry are checked by Bind.
func Parse(name string, data []byte) (*File, error) {
	r := &reader{file: name}
	if len(data) > MaxBytes {
		return nil, &Error{File: name, Msg: fmt.Sprintf("larger than %d bytes", MaxBytes)}
	}
	tree, err := pyjson.DecodeTree(data)
	if err != nil {
		return nil, &Error{File: name, Msg: "not JSON: " + pyjson.DecodeErrorAt(data, err)}
	}
	top := r.obj("", tree, []string{"format", "domain_id", "corpus_version", "cases"})
	f := &File{Name: name, Cases: map[string]*Entry{}}
	if top == nil {
		return nil, r.err
	}
	if format := r.str("format", top["format"]); r.err == nil && format != Format {
		r.fail("format", "%q is not %q", format, Format)
	}
	f.DomainID = r.str("domain_id", top["domain_id"])
	f.CorpusVersion = r.str("corpus_version", top["corpus_version"])
	cases := r.dict("cases", top["cases"])
	if r.err != nil {
		return nil, r.err
	}
	for id := range cases {
		f.Order = append(f.Order, id)
	}
	sort.Strings(f.Order)
	for _, id := range f.Order {
		cr := &reader{file: name, caseID: id}
		e := cr.entry("cases."+id, cases[id])
		if cr.err != nil {
			return nil, cr.err
		}
		f.Cases[id] = e
	}
	return f, nil
}

var entryKeys = []string{"principals", "channels", "requests"}

func (r *reader) entry(path string, v any) *Entry {
	m := r.obj(path, v, entryKeys, "turn_channels", "grants", "unresolved", "ground_truth")
	e := &Entry{Audience: engine.CaseAudience{TurnChannels: map[string]string{}, Unresolved: map[string]string{}}}
	a := &e.Audience
	seen := map[string]string{}
	unique := func(p, kind, id string) {
		if prev, dup := seen[kind+"\x00"+id]; dup && r.err == nil {
			r.fail(p, "duplicate %s id %q (first at %s)", kind, id, prev)
		}
		seen[kind+"\x00"+id] = p
	}
	for i, x := range r.list(engine.JoinPath(path, "principals"), m["principals"]) {
		p := engine.JoinPath(engine.JoinPath(path, "principals"), i)
		pm := r.obj(p, x, []string{"id", "can_grant"})
		pr := engine.AudiencePrincipal{ID: r.str(p+".id", pm["id"]), CanGrant: r.boolean(p+".can_grant", pm["can_grant"])}
		unique(p+".id", "principal", pr.ID)
		a.Principals = append(a.Principals, pr)
	}
	for i, x := range r.list(engine.JoinPath(path, "channels"), m["channels"]) {
		p := engine.JoinPath(engine.JoinPath(path, "channels"), i)
		cm := r.obj(p, x, []string{"id", "visibility", "participants"})
		ch := engine.AudienceChannel{ID: r.str(p+".id", cm["id"]), Visibility: r.str(p+".visibility", cm["visibility"]),
			Participants: r.strs(p+".participants", cm["participants"])}
		switch ch.Visibility {
		case engine.VisibilityPrivate, engine.VisibilityShared, engine.VisibilityPublic:
		default:
			if r.err == nil {
				r.fail(p+".visibility", "%q is not private, shared or public", ch.Visibility)
			}
		}
		if ch.Visibility != engine.VisibilityPublic && len(ch.Participants) == 0 && r.err == nil {
			r.fail(p+".participants", "a %s channel needs at least one participant", ch.Visibility)
		}
		unique(p+".id", "channel", ch.ID)
		a.Channels = append(a.Channels, ch)
	}
	if tc, ok := m["turn_channels"]; ok {
		tm := r.dict(path+".turn_channels", tc)
		for k := range tm {
			e.turnChannelOrder = append(e.turnChannelOrder, k)
		}
		sort.Strings(e.turnChannelOrder)
		for _, k := range e.turnChannelOrder {
			a.TurnChannels[k] = r.str(path+".turn_channels."+k, tm[k])
		}
	}
	for i, x := range r.list(engine.JoinPath(path, "requests"), m["requests"]) {
		p := engine.JoinPath(engine.JoinPath(path, "requests"), i)
		rm := r.obj(p, x, []string{"id", "probe", "principal", "channel"})
		rq := engine.AudienceRequest{ID: r.str(p+".id", rm["id"]), ProbeID: r.str(p+".probe", rm["probe"]),
			Principal: r.str(p+".principal", rm["principal"]), Channel: r.str(p+".channel", rm["channel"])}
		unique(p+".id", "request", rq.ID)
		a.Requests = append(a.Requests, rq)
	}
	if g, ok := m["grants"]; ok {
		for i, x := range r.list(path+".grants", g) {
			gr := r.grant(engine.JoinPath(path+".grants", i), x)
			unique(engine.JoinPath(path+".grants", i)+".id", "grant", gr.ID)
			a.Grants = append(a.Grants, gr)
		}
	}
	if u, ok := m["unresolved"]; ok {
		um := r.dict(path+".unresolved", u)
		for k, v := range um {
			a.Unresolved[k] = r.str(path+".unresolved."+k, v)
		}
	}
	if t, ok := m["ground_truth"]; ok {
		e.Truth = r.truth(path+".ground_truth", t)
	}
	return e
}

func (r *reader) grant(p string, x any) engine.AudienceGrant {
	gm := r.obj(p, x, []string{"id", "object", "to", "by", "at_turn"}, "removed_at_turn")
	g := engine.AudienceGrant{ID: r.str(p+".id", gm["id"]), By: r.str(p+".by", gm["by"]), AtTurn: r.str(p+".at_turn", gm["at_turn"]), RemovedAtBlock: -1}
	switch key, v := r.oneOf(p+".object", gm["object"], "record", "turn"); key {
	case "record":
		g.ObjectRecord = r.str(p+".object.record", v)
	case "turn":
		g.ObjectTurn = r.str(p+".object.turn", v)
	}
	switch key, v := r.oneOf(p+".to", gm["to"], "channel", "principals"); key {
	case "channel":
		g.ToChannel = r.str(p+".to.channel", v)
	case "principals":
		g.ToPrincipals = r.strs(p+".to.principals", v)
		if len(g.ToPrincipals) == 0 && r.err == nil {
			r.fail(p+".to.principals", "a grant to nobody widens nothing")
		}
	}
	if rm, ok := gm["removed_at_turn"]; ok {
		g.RemovedAtTurn = r.str(p+".removed_at_turn", rm)
	}
	return g
}

func (r *reader) audience(p string, v any) engine.Audience {
	m := r.obj(p, v, nil, "public", "principals")
	switch {
	case r.err != nil:
		return engine.Audience{}
	case len(m) != 1:
		r.fail(p, "give exactly one of public or principals")
		return engine.Audience{}
	case m["public"] != nil:
		if !r.boolean(p+".public", m["public"]) && r.err == nil {
			r.fail(p+".public", "must be true (give principals otherwise)")
		}
		return engine.PublicAudience()
	}
	return engine.AudienceOf(r.strs(p+".principals", m["principals"])...)
}

func (r *reader) truth(p string, v any) Truth {
	m := r.obj(p, v, []string{"scenarios", "records", "must_not_leak", "requests"}, "decoy_turns")
	t := Truth{Records: map[string]engine.Audience{}, Requests: map[string]RequestTruth{}}
	t.Scenarios = r.strs(p+".scenarios", m["scenarios"])
	rec := r.dict(p+".records", m["records"])
	for _, k := range slices.Sorted(maps.Keys(rec)) {
		t.Records[k] = r.audience(p+".records."+k, rec[k])
	}
	for i, x := range r.list(p+".must_not_leak", m["must_not_leak"]) {
		q := engine.JoinPath(p+".must_not_leak", i)
		lm := r.obj(q, x, []string{"text", "audience"})
		t.MustNotLeak = append(t.MustNotLeak, Leak{Text: r.str(q+".text", lm["text"]), Audience: r.audience(q+".audience", lm["audience"])})
	}
	req := r.dict(p+".requests", m["requests"])
	for _, k := range slices.Sorted(maps.Keys(req)) {
		q := p + ".requests." + k
		qm := r.obj(q, req[k], []string{"true_principal", "entitled"})
		t.Requests[k] = RequestTruth{TruePrincipal: r.str(q+".true_principal", qm["true_principal"]), Entitled: r.boolean(q+".entitled", qm["entitled"])}
	}
	if d, ok := m["decoy_turns"]; ok {
		t.DecoyTurns = r.strs(p+".decoy_turns", d)
	}
	return t
}

// marshalIndent writes a tree as indented JSON with sorted keys and a final newline.
func marshalIndent(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
