package tui

import (
	"context"
	"fmt"

	"github.com/ealscope/ealscope/tui/export"
)

// `ealscope export`: a chain's story as Markdown, one self-contained HTML page, or SVG frames
// (one per step, drawn from the very frames presentation mode shows). This file loads the
// story and draws the frames; the writers are tui/export's.

// ExportOptions choose the chain, the block and the format of an export.
type ExportOptions struct {
	Store StoryStore
	// Rerun adds the chain's live re-runs to the story (nil: imported trials only).
	Rerun Rerunner
	Chain ChainKey
	// Block < 0 is the first false-authority block (or 0).
	Block int
	// Format is md, html or svg.
	Format string
	// Width and Height are the SVG frames' size in cells (default 120x40).
	Width, Height int
	Dark          bool
}

// ExportFile is one output: a Markdown or HTML document, or one SVG frame.
type ExportFile = export.File

// Export builds the story and renders it; it writes nothing (cmd/ealscope writes the files).
func Export(ctx context.Context, o ExportOptions) ([]ExportFile, error) {
	switch o.Format {
	case "md", "html", "svg":
	default:
		return nil, fmt.Errorf("--format %q: want md, html or svg", o.Format)
	}
	data, err := LoadStory(ctx, o.Store, o.Rerun, o.Chain, o.Block)
	if err != nil {
		return nil, err
	}
	story := buildStory(data)
	switch o.Format {
	case "md":
		return []ExportFile{export.Markdown(story, data.Detail.Summary.Key.RunID)}, nil
	case "html":
		return []ExportFile{export.HTML(story, data.Detail.Summary.Key.RunID, o.Dark)}, nil
	}
	w, h := o.Width, o.Height
	if w == 0 {
		w = 120
	}
	if h == 0 {
		h = 40
	}
	if w < 40 || h < 12 {
		return nil, fmt.Errorf("SVG frames of %dx%d are too small (at least 40x12)", w, h)
	}
	p := NewHighContrastPalette(o.Dark, false)
	st := NewStyles(p)
	return export.SVG(story, presentFrames(&st, story, w, h), w, h, o.Dark, p.Fg), nil
}

// StoryFrames are the plain-text presentation frames of a story, one per step (what the SVG
// frames show), for tests and `render --present`.
func StoryFrames(ctx context.Context, store StoryStore, rer Rerunner, key ChainKey, block, w, h int) ([]string, error) {
	data, err := LoadStory(ctx, store, rer, key, block)
	if err != nil {
		return nil, err
	}
	st := NewStyles(NewHighContrastPalette(true, true))
	return presentFrames(&st, buildStory(data), w, h), nil
}

// presentFrames are presentation mode's frames of a story, one per step.
func presentFrames(st *Styles, story Story, w, h int) []string {
	out := make([]string, len(story.Steps))
	for i := range story.Steps {
		out[i] = presentFrame(st, story, i, w, h)
	}
	return out
}
