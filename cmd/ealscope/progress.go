package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ealscope/ealscope/engine/safetext"
	"github.com/ealscope/ealscope/replay"
)

// runProgress prints progress on stderr: one \r-rewritten line on a terminal, a plain line per
// phase step (rate-limited) otherwise. Model calls are counted as they finish, not when their
// trial is written in plan order (one slow call would hold the count still), and every retry
// is printed as it happens, with the attempt, the wait and the failure: a retry's wait is the
// silence users took for a hang.
type runProgress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	last  time.Time
	phase string
	count int
	total int
	calls int
	shown bool
}

func newProgress(w io.Writer) *runProgress {
	return &runProgress{w: w, tty: isTTY(w)}
}

// observer reports the model calls made under a context to this progress line.
func (p *runProgress) observer() *replay.CallObserver {
	return &replay.CallObserver{
		Finished: func(string) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.calls++
			if p.phase != "" {
				p.print(false)
			}
		},
		Retry: func(e replay.RetryEvent) {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.retry(e)
		},
	}
}

func (p *runProgress) update(pr replay.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	changed := pr.Phase != p.phase
	if changed && p.tty && p.shown {
		fmt.Fprintln(p.w)
		p.shown = false
	}
	if changed {
		p.calls = 0 // the calls counted belong to the phase they were made in
	}
	p.phase, p.count, p.total = pr.Phase, pr.Done, pr.Total
	p.print(changed)
}

// print writes the current line: always on a new phase or the phase's last step, else at
// most every 200 ms on a terminal and every 2 s otherwise. p.mu is held.
func (p *runProgress) print(force bool) {
	final := p.total >= 0 && p.count == p.total
	every := 200 * time.Millisecond
	if !p.tty {
		every = 2 * time.Second
	}
	if !force && !final && time.Since(p.last) < every {
		return
	}
	line := p.line()
	if p.tty {
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
		p.shown = true
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.last = time.Now()
}

// line is "phase done/total" with the model calls the phase finished so far; a phase whose total is not
// known ahead (negative) shows its count alone.
func (p *runProgress) line() string {
	s := fmt.Sprintf("%-8s %d", p.phase, p.count)
	if p.total >= 0 {
		s += fmt.Sprintf("/%d", p.total)
	}
	if p.calls > 0 {
		s += fmt.Sprintf(" · %d model call%s finished", p.calls, plural(p.calls))
	}
	return s
}

// retry prints one retry on its own line, then puts the progress line back. p.mu is held.
func (p *runProgress) retry(e replay.RetryEvent) {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
	fmt.Fprintf(p.w, "retry: model %s attempt %d/%d failed (%s); next attempt in %.1fs\n",
		safetext.Line(e.Model), e.Attempt, e.MaxAttempts, safetext.Line(e.Reason), e.Wait.Seconds())
	p.shown = false
	if p.tty && p.phase != "" {
		p.print(true)
	}
}

func (p *runProgress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.shown {
		fmt.Fprintln(p.w)
	}
}
