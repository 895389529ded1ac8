package tui

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFixtureProbe(t *testing.T) {
	s, _ := testStore(t)
	k := formingChain(t)
	m, err := New(Options{Store: s, Dark: ptr(true), NoColor: true, Start: Start{Chain: &k, Block: -1}})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 80, 24)
	t.Log("\n" + ansi.Strip(m.Render()))
}
