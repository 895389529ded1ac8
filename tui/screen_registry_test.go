package tui

import (
	"strconv"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// tinyScreen is a screen only the tests have: it counts presses of x and says so.
type tinyScreen struct {
	c       *common
	presses int
}

var tinyCount = key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "count a tiny press"))

func (s tinyScreen) Init() tea.Cmd { return nil }

func (s tinyScreen) updateScreen(msg tea.Msg) (screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, tinyCount) {
		s.presses++
	}
	return s, nil
}

func (s tinyScreen) View() string {
	return "tiny screen · " + strconv.Itoa(s.presses) + " presses · " + strconv.Itoa(s.c.width) + " columns"
}
func (s tinyScreen) ShortHelp() []key.Binding  { return []key.Binding{tinyCount} }
func (s tinyScreen) FullHelp() [][]key.Binding { return [][]key.Binding{{tinyCount}} }
func (s tinyScreen) Title() string             { return "tiny screen" }
func (s tinyScreen) Status() string            { return "tiny status" }

// The one registration the tiny screen needs.
var tinyScreenID = registerScreen(screenSpec{name: "tiny", command: "tiny",
	open: func(e screenEnv, _ []string) (screen, error) { return tinyScreen{c: e.c}, nil }})

// TestRegisteredScreenOpensByCommand: a screen registered in one call opens with its `:`
// command, draws its view and status, takes the keys on top, lists its keys in the key bar
// and the `?` sheet, and esc goes back to the screen below.
func TestRegisteredScreenOpensByCommand(t *testing.T) {
	store, _ := testStore(t)
	m, err := New(Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, 100, 30)
	if got := strings.Join(matchingCommands("ti"), " "); got != ":tiny" {
		t.Errorf("the command line offers %q for \"ti\", want :tiny", got)
	}
	m = press(t, m, ":", "t", "i", "n", "y", "enter")
	if m.top() != tinyScreenID {
		t.Fatalf("after :tiny the top screen is %v (%s), want the tiny screen; error %v", m.top(), screens[m.top()].name, m.err)
	}
	f := frame(m, "")
	wantAll(t, "tiny screen frame", f, "tiny screen · 0 presses · 100 columns", "tiny status", "x count a tiny press")
	m = press(t, m, "x", "x")
	wantAll(t, "after two presses", frame(m, ""), "tiny screen · 2 presses")
	m = press(t, m, "?")
	wantAll(t, "help sheet", frame(m, ""), "keys · tiny screen", "count a tiny press")
	m = press(t, m, "esc", "esc") // close the sheet, then leave the screen
	if m.top() != screenRuns {
		t.Fatalf("esc from the tiny screen lands on %s, want runs", screens[m.top()].name)
	}
	if strings.Contains(frame(m, ""), "tiny screen") {
		t.Error("the runs screen still shows the tiny screen")
	}
}

// TestEveryTaskEndClosesItsTask: the result of each long task the screens start closes the
// footer's task by the key it was opened under, so the spinner stops.
func TestEveryTaskEndClosesItsTask(t *testing.T) {
	store, _ := testStore(t)
	m, err := New(Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		start taskStartedMsg
		end   tea.Msg
	}{
		{taskStartedMsg{3, "search"}, searchDoneMsg{seq: 3}},
		{taskStartedMsg{4, "rerun"}, rerunDoneMsg{seq: 4}},
		{taskStartedMsg{5, labTaskLabel("chain")}, labDoneMsg{owner: "chain", seq: 5}},
	} {
		next, _ := m.Update(c.start)
		m = next.(Model)
		if len(m.tasks) != 1 {
			t.Fatalf("%s started: tasks %v", c.start.label, m.tasks)
		}
		next, _ = m.Update(c.end)
		m = next.(Model)
		if len(m.tasks) != 0 {
			t.Errorf("%T did not close its task: %v", c.end, m.tasks)
		}
	}
}
