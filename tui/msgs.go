package tui

import "fmt"

// Cross-screen messages only; each screen's own result messages live next to its handler.

// errMsg is a failed command. Screens show it in the status line; the program keeps running.
type errMsg struct{ err error }

func (e errMsg) Error() string { return e.err.Error() }

// openRunMsg asks the root to push the chains screen of a run.
type openRunMsg struct{ run RunSummary }

// openChainMsg asks the root to push (or retarget) the chain view. Block < 0 opens the first
// false-authority block, or block 0 when the chain has none.
type openChainMsg struct {
	key   ChainKey
	block int
}

// openPresentMsg asks the root to push presentation mode on a chain's story at a block
// (< 0: the first false-authority block).
type openPresentMsg struct {
	key   ChainKey
	block int
}

// statusMsg is a one-line notice for the status bar ("copied", "no more matches").
type statusMsg string

// taskStartedMsg and taskDoneMsg frame long work (CONVENTIONS §9): the footer shows a spinner
// while any task is open, and results of superseded tasks are dropped by id.
type taskStartedMsg struct {
	id    int
	label string
}

type taskDoneMsg struct {
	id  int
	err error
}

func errorf(format string, args ...any) errMsg { return errMsg{fmt.Errorf(format, args...)} }
