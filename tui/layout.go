package tui

// size is a region's outer width and height, borders included.
type size struct{ w, h int }

// chainFrames are the chain view's regions. A zero size means the region is hidden.
type chainFrames struct {
	header, footer                    size
	timeline, history, memory, probes size
	// wide is true when all four panes show at once; otherwise the timeline and the focused
	// content pane share the screen and tab swaps which content pane that is.
	wide bool
}

// layoutState is what the layout depends on besides the terminal size.
type layoutState struct {
	focus pane // the focused pane (decides the content pane in narrow mode)
	only  pane // when not paneNone, that pane alone fills the body (render --pane)
}

const (
	headerHeight = 1
	footerHeight = 2 // status/command line + short help
	minWideW     = 110
	minWideH     = 30
)

// chainLayout splits the terminal among the chain view's panes. It is pure so it can be
// tested directly and called once per resize.
func chainLayout(w, h int, st layoutState) chainFrames {
	f := chainFrames{header: size{w, headerHeight}, footer: size{w, footerHeight}}
	bodyH := max(h-headerHeight-footerHeight, 0)
	if st.only != paneNone {
		if only := f.pane(st.only); only != nil {
			*only = size{w, bodyH}
		}
		return f
	}
	if w >= minWideW && h >= minWideH {
		f.wide = true
		tw := clamp(w/4, 28, 40)
		rw := w - tw
		top := bodyH * 45 / 100
		mw := rw * 58 / 100
		f.timeline = size{tw, bodyH}
		f.history = size{rw, top}
		f.memory = size{mw, bodyH - top}
		f.probes = size{rw - mw, bodyH - top}
		return f
	}
	tw := clamp(w*30/100, 20, 30)
	if w < 50 { // too narrow for two columns: the focused pane alone
		tw = 0
	}
	f.timeline = size{tw, bodyH}
	// The focused content pane takes the rest; with the timeline focused that is the history,
	// unless the timeline is the one pane there is room for.
	shown := st.focus
	timelineAlone := shown == paneTimeline && tw == 0
	if shown != paneMemory && shown != paneProbes && !timelineAlone {
		shown = paneHistory
	}
	*f.pane(shown) = size{w - tw, bodyH}
	return f
}

// pane is where the size of chain-view pane p is kept (nil for paneNone).
func (f *chainFrames) pane(p pane) *size {
	switch p {
	case paneTimeline:
		return &f.timeline
	case paneHistory:
		return &f.history
	case paneMemory:
		return &f.memory
	case paneProbes:
		return &f.probes
	}
	return nil
}

// listLayout is the runs and chains screens: a header line, the table, the footer.
func listLayout(w, h int) (tableH int) {
	return max(h-headerHeight-footerHeight, 0)
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
