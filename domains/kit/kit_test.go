package kit

import (
	"errors"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/engine"
)

// note is a record of a test domain written on the kit.
type note struct{ id, state string }

func (n *note) AuthorizationID() string { return n.id }
func (n *note) Status() string          { return n.state }

// other is a record of some other domain.
type other struct{}

func (other) AuthorizationID() string { return "x" }
func (other) Status() string          { return "active" }

type noteSpec struct{}

func (noteSpec) KitSpec() Spec[*note] {
	return Spec[*note]{
		DomainID: "notes", AdapterVersion: "9",
		ParseTyped: func(any) ([]*note, error) { return nil, errors.New("payload: not notes") },
		FaithfulText: func(ns []*note) string {
			var b strings.Builder
			for _, n := range ns {
				b.WriteString(n.id + "=" + n.state + "\n")
			}
			return b.String()
		},
		Ledger: func(c *engine.Case, through int) ([]*note, error) {
			if through > c.LastBlock() {
				return nil, errors.New("no such block")
			}
			return []*note{{id: "a", state: "active"}}, nil
		},
		ScoreCall: func(_ *engine.Case, ledger []*note, p engine.Probe, name string, _ map[string]any) engine.ToolScore {
			return engine.ToolScore{Decision: name, Valid: true, Detail: p.ID + ":" + ledger[0].id}
		},
		SystemPrompt: func(c *engine.Case) string { return "policy " + c.Policy },
		SourceAuthority: SourceAuthority[*note]{
			Principals: func(c *engine.Case) []string { return c.AuthorizedIssuers },
			Citations:  func(n *note) []string { return []string{"t-" + n.id} },
		},
	}
}

type notes struct{ Adapter[noteSpec, *note] }

func TestAdapterRolesComeFromTheSpec(t *testing.T) {
	var d notes
	if d.ID() != "notes" || d.AdapterVersion() != "9" {
		t.Fatalf("identity %q %q", d.ID(), d.AdapterVersion())
	}
	c := &engine.Case{Policy: "p1", Blocks: []engine.Block{{Index: 0}, {Index: 1}}}
	if got := d.SystemPrompt(c); got != "policy p1" {
		t.Fatalf("system prompt %q", got)
	}
	recs, err := d.Replay(c, 1)
	if err != nil || len(recs) != 1 || recs[0].AuthorizationID() != "a" {
		t.Fatalf("replay %v %v", recs, err)
	}
	if got := d.FaithfulText(recs); got != "a=active\n" {
		t.Fatalf("faithful text %q", got)
	}
	if _, err := d.ParseTyped(nil); err == nil || !strings.Contains(err.Error(), "not notes") {
		t.Fatalf("parse error %v", err)
	}
	// A negative block is the last one; a ledger that does not replay makes the call invalid.
	if s := d.ScoreToolCall(c, engine.Probe{ID: "p"}, "approve", nil, -1); s.Detail != "p:a" || !s.Valid {
		t.Fatalf("score %+v", s)
	}
	if s := d.ScoreToolCall(c, engine.Probe{ID: "p"}, "approve", nil, 5); s.Decision != engine.Invalid || s.Detail != "no such block" {
		t.Fatalf("score on a broken ledger %+v", s)
	}
}

func TestAnotherDomainsRecordIsAProgrammingError(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "kit.other") {
			t.Fatalf("recovered %v", r)
		}
	}()
	notes{}.FaithfulText([]engine.Record{other{}})
}

func TestSourceAuthorityComesFromTheSpec(t *testing.T) {
	var d notes
	c := &engine.Case{AuthorizedIssuers: []string{"cfo"}}
	if got := d.AuthorityCapablePrincipals(c); len(got) != 1 || got[0] != "cfo" {
		t.Fatalf("principals %v", got)
	}
	if got := d.TurnPrincipal(engine.Turn{ActorID: "ann", Speaker: "Ann"}); got != "ann" {
		t.Fatalf("turn principal %q", got)
	}
	if got := d.RecordCitations(&note{id: "a"}); len(got) != 1 || got[0] != "t-a" {
		t.Fatalf("citations %v", got)
	}
	// A record of another domain cites nothing rather than panicking: the safeguards read
	// records from any memory they are handed.
	if got := d.RecordCitations(other{}); got != nil {
		t.Fatalf("another domain's record cites %v", got)
	}
}

func TestToolKinds(t *testing.T) {
	k := ToolKinds{Actions: []string{"buy", "buy_alt"}, Escalation: "ask", Decline: "no"}
	for name, want := range map[string]engine.ToolKind{"buy": engine.ActionTool, "buy_alt": engine.ActionTool, "ask": engine.EscalationTool, "no": engine.DeclineTool, "": engine.NotTerminal, "shutdown": engine.NotTerminal} {
		if got := k.Kind(name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
}
