package tui

import (
	"maps"
	"strconv"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// The screen contract and the registry the root routes through. A new screen is one file:
// a type that satisfies screen, and one registerScreen call naming the message (or the `:`
// command) that opens it. The root never names a screen: it asks the registry which screen
// a message opens, routes keys to the screen on top, results to every open screen, and
// draws the top screen's view, title, status and key map.

// screen is what the root asks of every screen. Screens draw in the area the shared common
// holds (c.width, c.height less the footer): the root sets it on every resize, so a screen
// sizes itself from it when it draws rather than keeping a copy that could go stale.
type screen interface {
	// Init starts the screen's first queries (it runs when the screen is pushed, or when the
	// user goes back to a screen that has never been on top).
	Init() tea.Cmd
	// updateScreen handles a message: keys when the screen is on top, and results addressed
	// to it whether on top or not (each screen drops results addressed to another).
	updateScreen(tea.Msg) (screen, tea.Cmd)
	// View draws the screen's body (the root adds the footer).
	View() string
	// help.KeyMap is the key bar (ShortHelp) and the `?` sheet (FullHelp).
	help.KeyMap
	// Title names what the `?` sheet lists keys for ("memory pane"); empty is the screen.
	Title() string
	// Status is the status line while the screen is on top and has no error or notice.
	Status() string
}

// Optional parts of the contract, asked for by type assertion.
type (
	// capturer takes every key while typing (a filter, a search, a form field).
	capturer interface{ capturing() bool }
	// backer undoes the screen's innermost state on esc (a search, a pane focus) before the
	// root pops the screen; undone false means there was nothing to undo.
	backer interface {
		goBack() (s screen, undone bool)
	}
	// fullScreen owns the whole terminal: no footer or key bar (presentation mode).
	fullScreen interface{ ownsScreen() bool }
	// commander answers the `:` commands that act on the screen itself (`:block 7`).
	commander interface {
		command(e screenEnv, name string, args []string) (commandResult, bool)
	}
	// framer sets a screen up for one printed frame (`ealscope render`, tui/run.go).
	framer interface {
		frame(o FrameOptions, p pane) (screen, error)
	}
)

// taskEnd is the result that ends a long task a screen started with a taskStartedMsg: the
// footer's spinner runs while any task is open.
type taskEnd interface{ taskKey() string }

// taskKey names a started task: its label and sequence number.
func (t taskStartedMsg) taskKey() string { return t.label + strconv.Itoa(t.id) }

// commandResult is what a screen's `:` command did: the screen after it, a command to run,
// an error or a notice for the status line.
type commandResult struct {
	s      screen
	cmd    tea.Cmd
	err    error
	notice string
}

// screenEnv is what a screen is built from: the shared styles, keys and size, and the
// program's stores and settings.
type screenEnv struct {
	c    *common
	opts Options
}

// screenSpec registers a screen.
type screenSpec struct {
	// name is the screen's name in errors and tests.
	name string
	// opens builds the screen when msg asks for it; ok false when msg is for another screen.
	// top is the screen on top, so a screen opened over one of its own kind can carry state
	// over (the chain view keeps a search across chains) and replace it (replace true).
	opens func(e screenEnv, msg tea.Msg, top screen) (s screen, replace, ok bool)
	// command, when set, is a `:` command that opens the screen from any screen; hint is how
	// the command line lists it (":name ARG"); open builds it from the command's arguments.
	command string
	hint    string
	open    func(e screenEnv, args []string) (screen, error)
	// slot keeps a screen in a typed field of the model; nil keeps it in the model's map of
	// screens. The screens written before the registry keep their fields, which the tests
	// read; the root reaches them only through this slot.
	slot *screenSlot
}

// screenSlot reads and writes the field a screen lives in.
type screenSlot struct {
	get func(m *Model) screen
	set func(m *Model, s screen)
}

// fieldSlot is the slot of a typed field of the model.
func fieldSlot[S screen](field func(m *Model) *S) *screenSlot {
	return &screenSlot{
		get: func(m *Model) screen { return *field(m) },
		set: func(m *Model, s screen) { *field(m) = s.(S) },
	}
}

// registerScreen adds a screen to the program and returns its id. Call it from a package
// variable or init, before any program starts.
func registerScreen(spec screenSpec) screenID {
	if len(screens) == maxScreens {
		panic("tui: more than 64 registered screens")
	}
	screens = append(screens, spec)
	return screenID(len(screens) - 1)
}

// maxScreens bounds the registry so the set of open screens fits in a word.
const maxScreens = 64

// screenAt is the screen with this id, or nil when it has not been opened.
func (m *Model) screenAt(id screenID) screen {
	if m.open&(1<<id) == 0 {
		return nil
	}
	if sl := screens[id].slot; sl != nil {
		return sl.get(m)
	}
	return m.others[id]
}

// setScreen stores a screen (and marks it open). The map of other screens is copied before
// a write so a model value that was handed out earlier keeps its screens.
func (m *Model) setScreen(id screenID, s screen) {
	m.open |= 1 << id
	if sl := screens[id].slot; sl != nil {
		sl.set(m, s)
		return
	}
	m.others = maps.Clone(m.others)
	if m.others == nil {
		m.others = map[screenID]screen{}
	}
	m.others[id] = s
}

// topScreen is the screen on top (nil before the first is placed).
func (m Model) topScreen() screen {
	if len(m.stack) == 0 {
		return nil
	}
	return m.screenAt(m.top())
}

// env is what screens are built from.
func (m Model) env() screenEnv { return screenEnv{c: m.c, opts: m.opts} }

// opening finds the screen a message opens, if any.
func (m Model) opening(msg tea.Msg) (id screenID, s screen, replace, ok bool) {
	top := m.topScreen()
	for i, spec := range screens {
		if spec.opens == nil {
			continue
		}
		if s, replace, ok := spec.opens(m.env(), msg, top); ok {
			return screenID(i), s, replace && len(m.stack) > 0 && m.top() == screenID(i), true
		}
	}
	return 0, nil, false, false
}

// commandScreen is the screen a `:` command opens, if any.
func commandScreen(name string) (screenID, bool) {
	for i, spec := range screens {
		if spec.command != "" && spec.command == name {
			return screenID(i), true
		}
	}
	return 0, false
}
