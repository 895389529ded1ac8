package engine

import (
	"fmt"
	"strings"
	"testing"
)

// lineCorpus is a corpus reader without ParseEach: one case id per line, "!" refused.
type lineCorpus struct{}

func (lineCorpus) ParseCorpus(name string, data []byte) ([]*Case, error) {
	var out []*Case
	for i, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l == "!" {
			return nil, fmt.Errorf("%s:%d: field case_id: refused", name, i+1)
		}
		out = append(out, &Case{ID: l, Line: i + 1})
	}
	return out, nil
}
func (lineCorpus) BuiltinCorpus() (string, []byte) { return "", nil }

// eachCorpus reads case by case.
type eachCorpus struct{ lineCorpus }

func (eachCorpus) ParseEach(string, []byte) []ParsedCase {
	return []ParsedCase{{Line: 9, CaseID: "own"}}
}

func TestParseEachFallsBackToTheStrictReader(t *testing.T) {
	got := ParseEach(lineCorpus{}, "c.txt", []byte("a\nb\n"))
	if len(got) != 2 || got[0].CaseID != "a" || got[1].Line != 2 || got[1].Case.ID != "b" || got[1].Err != nil {
		t.Fatalf("entries %+v", got)
	}
	got = ParseEach(lineCorpus{}, "c.txt", []byte("a\n!\n"))
	if len(got) != 1 || got[0].Err == nil || !strings.Contains(got[0].Err.Error(), "c.txt:2: field case_id") {
		t.Fatalf("a refused file is one failed entry naming its line: %+v", got)
	}
	if got = ParseEach(eachCorpus{}, "c.txt", nil); len(got) != 1 || got[0].CaseID != "own" {
		t.Fatalf("a case-by-case reader reads its own way: %+v", got)
	}
}

// plainWriter has no rendering of its own; ownWriter has one.
type plainWriter struct{}

func (plainWriter) CapacityTokens() int { return 1 }
func (plainWriter) Surface() Surface    { return Surface{} }

type ownWriter struct{ plainWriter }

func (ownWriter) RenderBlock(c *Case, index int) string { return "own " + c.Blocks[index].ID }

func TestRenderBlockDefaultsToOneLinePerTurn(t *testing.T) {
	c := &Case{Blocks: []Block{{ID: "b0", Turns: []Turn{{ID: "t1", Speaker: "Ann", Content: "hello"}, {ID: "t2", Speaker: "Bo", Content: "hi"}}}}}
	if got := RenderBlock(plainWriter{}, c, 0); got != "[t1] Ann: hello\n[t2] Bo: hi\n" {
		t.Fatalf("default rendering %q", got)
	}
	if got := RenderBlock(ownWriter{}, c, 0); got != "own b0" {
		t.Fatalf("a domain's own rendering %q", got)
	}
}
