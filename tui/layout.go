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
		full := size{w, bodyH}
		switch st.only {
		case paneTimeline:
			f.timeline = full
		case paneHistory:
			f.history = full
		case paneMemory:
			f.memory = full
		case paneProbes:
			f.probes = full
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
	content := size{w - tw, bodyH}
	switch st.focus {
	case paneMemory:
		f.memory = content
	case paneProbes:
		f.probes = content
	case paneTimeline:
		if tw == 0 {
			f.timeline = content
			return f
		}
		f.history = content
	default:
		f.history = content
	}
	return f
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
