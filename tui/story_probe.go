package tui

import (
	"context"
	"fmt"

	"github.com/ealscope/ealscope/runs"
)

// Which probe a story follows, and at which block. The run's executor trials read the chain's
// final memory, so a probe's end-to-end attribution is about the final memory, while the
// probes pane's "forms" is about the block on screen. A story that took the probe from one and
// the verdict from the other contradicted itself ("the memory forms false authority … not
// memory-induced: memory did not form for this request"). The story therefore follows a
// probe whose failure is memory-induced whenever the chain has one, tells it at the block where
// that probe's false authority first forms (unless a block was asked for), and says what the
// final memory grants wherever the executor's action is shown.

// memoryInducedProbes are the probes with a trial attributed to memory.
func memoryInducedProbes(probes []ProbeRow) map[string]bool {
	out := map[string]bool{}
	for _, p := range probes {
		for _, t := range p.Trials {
			if t.Attributed != nil && *t.Attributed {
				out[p.ProbeID] = true
			}
		}
	}
	return out
}

// earliestForming is the probe among ids whose false authority forms first, and that block
// ("", -1 when none forms): the story of the earliest memory-induced failure.
func earliestForming(ctx context.Context, store ChainReader, key runs.ChainKey, ids map[string]bool, blocks int) (string, int, error) {
	if len(ids) == 0 {
		return "", -1, nil
	}
	for i := 0; i < blocks; i++ {
		rows, err := store.ProbesAt(ctx, key, i)
		if err != nil {
			return "", -1, err
		}
		for _, p := range rows {
			if ids[p.ProbeID] && p.Formed != nil && *p.Formed {
				return p.ProbeID, i, nil
			}
		}
	}
	return "", -1, nil
}

// storyProbe is the probe the story follows at block b (nil when b's memory forms no false
// authority at all): the memory-induced probe the story was loaded for, else one the memory forms false authority for at b, preferring one whose final
// memory still forms it and whose trial acted without authorization.
func storyProbe(b BlockDetail, data StoryData) *ProbeRow {
	forming := false
	for _, p := range b.Probes {
		forming = forming || p.Forms != nil && *p.Forms
	}
	if !forming {
		return nil // a block without false authority ends the story
	}
	for i := range b.Probes {
		if data.ProbeID != "" && b.Probes[i].ProbeID == data.ProbeID {
			return &b.Probes[i]
		}
	}
	var best *ProbeRow
	rank := -1
	for i := range b.Probes {
		p := &b.Probes[i]
		if p.Forms == nil || !*p.Forms {
			continue
		}
		r := 0
		if f := finalProbe(data, p.ProbeID); f != nil && f.Forms != nil && *f.Forms {
			r = 1
		}
		for _, t := range p.Trials {
			switch {
			case t.Attributed != nil && *t.Attributed:
				r = max(r, 3)
			case t.Unauthorized && r == 1:
				r = 2
			}
		}
		if r > rank {
			best, rank = p, r
		}
	}
	return best
}

// finalProbe is the probe's row at the chain's last block (what the run's trials read).
func finalProbe(data StoryData, id string) *ProbeRow {
	for i := range data.FinalProbes {
		if data.FinalProbes[i].ProbeID == id {
			return &data.FinalProbes[i]
		}
	}
	return nil
}

// formsPhrase says whether a memory forms false authority for the probe.
func formsPhrase(p *ProbeRow, name string) string {
	switch {
	case p == nil || p.Forms == nil:
		return "is not scored for " + name
	case *p.Forms:
		return "grants " + name + " although the ledger denies it"
	}
	return "grants " + name + " no more than the ledger does"
}

// finalMemoryNote says what the final memory, which the run's trials read, does for the probe
// when the story is told at an earlier block.
func finalMemoryNote(data StoryData, block int, id, name string) string {
	last := len(data.Detail.Blocks) - 1
	if block == last {
		return ""
	}
	return fmt.Sprintf("The executor read the final memory (block %d), which %s.", last, formsPhrase(finalProbe(data, id), name))
}

// formationUnscored reports a chain whose false authority is unknown: no block forms, and
// some of its memory awaits an annotation.
func formationUnscored(c ChainSummary) bool {
	return c.FirstFalseAuthority < 0 && c.NeedsAnnotation
}

// hasFailure reports whether a chain has anything a failure story could tell: false
// authority, an unauthorized action, a memory-induced failure, or formation not yet known.
func hasFailure(c ChainSummary) bool {
	return c.FirstFalseAuthority >= 0 || c.UnauthorizedActions > 0 || c.MemoryInduced > 0 || c.NeedsAnnotation
}
