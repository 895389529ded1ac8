package export

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/color"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/ealscope/ealscope/tui/storymodel"
)

// SVG frames for slides: each is presentation mode's frame for one step, the same string the
// TUI draws, with its SGR styling (bold, reverse, 24-bit colours) turned into tspans on a
// fixed cell grid. Text is XML-escaped; the frame holds no control characters besides SGR.

const (
	svgCellW  = 9.6 // cell width in px for a 16px monospace font
	svgCellH  = 20.0
	svgFontPx = 16
)

// SVG turns presentation mode's frames of a story, one per step (frames[i] is step i, drawn
// w×h by the TUI in its high-contrast palette whose text colour is fg), into SVG files.
func SVG(s storymodel.Story, frames []string, w, h int, dark bool, fg color.Color) []File {
	bg := "#ffffff"
	if dark {
		bg = "#000000"
	}
	out := make([]File, len(s.Steps))
	for i, step := range s.Steps {
		out[i] = File{Name: fmt.Sprintf("%s-%02d-%s.svg", FileStem(s), i+1, step.Kind), Data: frameSVG(frames[i], w, h, bg, hexColor(fg))}
	}
	return out
}

func hexColor(c color.Color) string {
	if c == nil {
		return ""
	}
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// cellStyle is the SGR state of a run of cells.
type cellStyle struct {
	fg, bg        string
	bold, reverse bool
}

func (c *cellStyle) apply(params ansi.Params) {
	if len(params) == 0 {
		*c = cellStyle{}
		return
	}
	for i := 0; i < len(params); i++ {
		switch n := params[i].Param(0); {
		case n == 0:
			*c = cellStyle{}
		case n == 1:
			c.bold = true
		case n == 22:
			c.bold = false
		case n == 7:
			c.reverse = true
		case n == 27:
			c.reverse = false
		case n == 39:
			c.fg = ""
		case n == 49:
			c.bg = ""
		case n == 38 || n == 48:
			var col color.Color
			used := ansi.ReadStyleColor(params[i:], &col)
			if used == 0 {
				return
			}
			if n == 38 {
				c.fg = hexColor(col)
			} else {
				c.bg = hexColor(col)
			}
			i += used - 1
		}
	}
}

// frameSVG draws a styled frame of w×h cells.
func frameSVG(frame string, w, h int, bg, fg string) []byte {
	var b bytes.Buffer
	esc := func(s string) string {
		var x bytes.Buffer
		_ = xml.EscapeText(&x, []byte(s))
		return x.String()
	}
	W, H := float64(w)*svgCellW, float64(h)*svgCellH
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d">
<rect width="100%%" height="100%%" fill="%s"/>
`, W, H, W, H, svgFontPx, bg)
	p := ansi.NewParser()
	for row, line := range strings.Split(frame, "\n") {
		if row >= h {
			break
		}
		y := float64(row)*svgCellH + svgCellH*0.75
		var st cellStyle
		var runs []struct {
			col  int
			st   cellStyle
			text string
		}
		col := 0
		var state byte
		for len(line) > 0 {
			seq, width, n, newState := ansi.DecodeSequence(line, state, p)
			state, line = newState, line[n:]
			if width == 0 {
				if ansi.HasCsiPrefix(seq) && ansi.Cmd(p.Command()).Final() == 'm' {
					st.apply(p.Params())
				}
				continue
			}
			if k := len(runs) - 1; k >= 0 && runs[k].st == st && runs[k].col+ansi.StringWidth(runs[k].text) == col {
				runs[k].text += seq
			} else {
				runs = append(runs, struct {
					col  int
					st   cellStyle
					text string
				}{col, st, seq})
			}
			col += width
		}
		// Backgrounds first (reverse video swaps the colours), then the text of the line.
		for _, r := range runs {
			f, g := r.st.fg, r.st.bg
			if f == "" {
				f = fg
			}
			if r.st.reverse {
				f, g = g, f
				if f == "" {
					f = bg
				}
			}
			if g != "" {
				fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.0f" fill="%s"/>`+"\n", float64(r.col)*svgCellW, float64(row)*svgCellH,
					float64(ansi.StringWidth(r.text))*svgCellW, svgCellH, g)
			}
		}
		fmt.Fprintf(&b, `<text y="%.1f" xml:space="preserve">`, y)
		for _, r := range runs {
			f := r.st.fg
			if f == "" {
				f = fg
			}
			if r.st.reverse {
				f = r.st.bg
				if f == "" {
					f = bg
				}
			}
			weight := ""
			if r.st.bold {
				weight = ` font-weight="bold"`
			}
			fmt.Fprintf(&b, `<tspan x="%.1f" fill="%s"%s>%s</tspan>`, float64(r.col)*svgCellW, f, weight, esc(r.text))
		}
		b.WriteString("</text>\n")
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}
