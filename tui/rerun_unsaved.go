package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/ealscope/ealscope/replay"
)

// unsavedArms are finished re-run arms the workspace refused to store (it stayed locked by
// another writer past the wait): they are kept in memory and the panel offers to save them
// again, since a result a user waited (and maybe paid) for must not be lost to a busy
// database.
type unsavedArms struct {
	arms   []replay.RerunResult
	save   replay.SaveFunc
	lastEr error
	saving bool
	// batches are the re-run's batches, shown once the arms are saved.
	batches []string
}

// keep records the arms of a finished re-run whose save failed; it reports whether there are
// any.
func (u *unsavedArms) keep(arms []replay.RerunResult, save replay.SaveFunc, err error) bool {
	if len(arms) == 0 {
		return false
	}
	u.arms = append(u.arms, arms...)
	u.save, u.lastEr = save, err
	return true
}

func (u *unsavedArms) note(save string) string {
	return sanitizeLine(fmt.Sprintf("UNSAVED: %d finished arm(s) kept here, not stored (%v): %s saves them again", len(u.arms), u.lastEr, save))
}

// rerunSavedMsg reports a save-again attempt: the arms still unsaved and the error.
type rerunSavedMsg struct {
	remaining []replay.RerunResult
	saved     int
	err       error
}

// saveAgain stores the kept arms, in order, stopping at the first failure.
func (p *rerunPanel) saveAgain() tea.Cmd {
	if p.unsaved.saving || p.unsaved.save == nil {
		return nil
	}
	p.unsaved.saving = true
	p.note = fmt.Sprintf("saving %d arm(s) again…", len(p.unsaved.arms))
	ctx, arms, save := p.c.lifetime(), append([]replay.RerunResult(nil), p.unsaved.arms...), p.unsaved.save
	return func() tea.Msg {
		for i, r := range arms {
			if err := save(ctx, r); err != nil {
				return rerunSavedMsg{remaining: arms[i:], saved: i, err: err}
			}
		}
		return rerunSavedMsg{saved: len(arms)}
	}
}

func (p *rerunPanel) savedAgain(msg rerunSavedMsg) tea.Cmd {
	p.unsaved.saving = false
	p.unsaved.arms = msg.remaining
	if msg.err != nil {
		p.unsaved.lastEr = msg.err
		p.note = p.unsaved.note(p.c.keys.List.Open.Help().Key)
		return nil
	}
	p.note = fmt.Sprintf("saved %d arm(s)", msg.saved)
	p.shown, p.scroll, p.unsaved.batches = p.unsaved.batches, 0, nil
	return loadRerunCmd(p.c.lifetime(), p.store, p.chain.ID, p.block)
}
