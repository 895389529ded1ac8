package export

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"github.com/ealscope/ealscope/engine/safetext"
	"github.com/ealscope/ealscope/tui/storymodel"
)

// storyHTML is one self-contained page: inline CSS, no scripts, no external resources, so it
// reads the same offline. Colour always comes with a glyph (+ - ~ ! ✓ ✗) and a legend, so
// meaning never rests on colour alone. Every datum goes through html.EscapeString.
func storyHTML(s storymodel.Story, runID string, dark bool) []byte {
	e := func(x string) string { return html.EscapeString(safetext.Print(x)) }
	bg, fg, subtle, add, del, chg, bad, good, accent := "#ffffff", "#000000", "#303030", "#005f00", "#af0000", "#5f3f00", "#c00000", "#005f00", "#0000b0"
	if dark {
		bg, fg, subtle, add, del, chg, bad, good, accent = "#000000", "#ffffff", "#c8c8c8", "#5fff5f", "#ff5f5f", "#ffd75f", "#ff3f3f", "#5fff5f", "#5fd7ff"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>ealscope · %s · %s</title>
<style>
body{background:%s;color:%s;font:18px/1.5 system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em}
h1{font-size:1.6em;color:%s}h2{font-size:1.25em;color:%s;border-top:2px solid %s;padding-top:.6em}
.meta,.note,.turn.other{color:%s}.caption{font-weight:bold}
pre{font:15px/1.4 ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.turn{margin:.6em 0;padding:.3em .6em;border-left:4px solid transparent}
.turn.cause{border-left-color:%s;font-weight:bold}
.add{color:%s;font-weight:bold}.del{color:%s}.chg{color:%s;font-weight:bold}.same{color:%s}
.bad{color:%s;font-weight:bold}.good{color:%s}
table{border-collapse:collapse;margin:.6em 0;display:block;overflow-x:auto}td,th{border:1px solid %s;padding:.25em .6em;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th,td:first-child{white-space:nowrap;overflow-wrap:normal}
.legend{border:1px solid %s;padding:.4em .8em}.legend span{margin-right:1.2em}
</style>
</head>
<body>
`, e(s.Chain.CaseID), e(s.Chain.ConditionID), bg, fg, accent, accent, subtle, subtle, accent, add, del, chg, subtle, bad, good, subtle, subtle)
	fmt.Fprintf(&b, "<header>\n<h1>Failure chain: %s</h1>\n<p class=\"meta\">%s · run %s</p>\n", e(s.Chain.CaseID), e(storyHeading(s)), e(runID))
	b.WriteString(`<p class="legend" id="legend"><b>Legend:</b> <span class="add">+ added</span><span class="del">- removed</span><span class="chg">~ changed</span><span class="bad">! false authority / error</span><span class="good">✓ grant / held</span><span class="bad">✗ deny / not held</span><span>▶ the turn that caused it</span></p>` + "\n</header>\n<main>\n")
	for i, st := range s.Steps {
		fmt.Fprintf(&b, "<section class=\"step\" id=\"step-%d\" data-kind=\"%s\">\n<h2>%d · %s</h2>\n<p class=\"caption\">%s</p>\n", i+1, st.Kind, i+1, e(st.Title), e(st.Caption))
		if st.Note != "" {
			fmt.Fprintf(&b, "<p class=\"note\">%s</p>\n", e(st.Note))
		}
		switch st.Kind {
		case storymodel.StepTurn:
			for _, t := range st.Turns {
				cls, mark := "turn other", ""
				if t.Highlight {
					cls, mark = "turn cause", "▶ "
				}
				fmt.Fprintf(&b, "<div class=\"%s\"><div>%s%s</div><pre>%s</pre></div>\n", cls, mark, e(turnHead(t)), e(t.Content))
			}
		case storymodel.StepMemory:
			if st.MemoryHead != "" {
				fmt.Fprintf(&b, "<p class=\"meta\">%s</p>\n<pre class=\"diff\">", e(st.MemoryHead))
				for _, r := range st.Diff {
					b.WriteString(htmlDiffRow(r, st.TextDiff, e))
					b.WriteString("\n")
				}
				b.WriteString("</pre>\n")
			}
		case storymodel.StepFalseAuthority:
			if len(st.Ledger) > 0 {
				b.WriteString("<table><tr><th>ledger row</th><th>field</th><th>ledger</th><th>memory</th><th>error</th></tr>\n")
				for _, r := range st.Ledger {
					fmt.Fprintf(&b, "<tr class=\"bad\"><td>! %s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", e(r.AuthorizationID), e(storymodel.FieldLabel(r.Field)),
						e(r.Ledger), e(r.Remembered), e(errorClass(r)))
				}
				b.WriteString("</table>\n")
			}
			if p := st.Probe; p != nil {
				if len(p.Request) > 0 {
					fmt.Fprintf(&b, "<p class=\"note\">request: %s</p>\n", e(storymodel.RequestText(p.Request)))
				}
				fmt.Fprintf(&b, "<ul><li>probe <code>%s</code> (%s %s)</li><li>ledger at block %d: <span class=\"%s\">%s</span></li><li>memory at block %d: %s</li><li class=\"%s\">%s</li></ul>\n",
					e(p.ProbeID), e(p.Scope), e(p.Dimension), s.Block, grantClass(p.AuthorizedNow), grantText(p.AuthorizedNow), s.Block, e(memoryGrantText(p)),
					map[bool]string{true: "bad", false: "ok"}[p.Forms != nil && *p.Forms], e(storymodel.ProbeFormsLine(p, s.Block)))
			}
		case storymodel.StepAction, storymodel.StepExact:
			b.WriteString(htmlArmTable(st, e))
		case storymodel.StepAttribution:
			b.WriteString("<ul>\n")
			for _, c := range st.Checks {
				fmt.Fprintf(&b, "<li class=\"%s\">%s %s</li>\n", grantClass(c.OK), checkGlyph(c.OK), e(c.Label))
			}
			cls := "caption"
			if st.Verdict == "memory-induced" {
				cls = "bad"
			}
			fmt.Fprintf(&b, "</ul>\n<p class=\"%s\">= %s</p>\n", cls, e(strings.ToUpper(st.Verdict)))
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</main>\n<footer class=\"meta\"><p>Written by ealscope export.</p></footer>\n</body>\n</html>\n")
	return b.Bytes()
}

func grantClass(ok bool) string {
	if ok {
		return "good"
	}
	return "bad"
}

func htmlDiffRow(r storymodel.DiffRow, text bool, e func(string) string) string {
	if text {
		var b strings.Builder
		for _, g := range r.Segs {
			switch g.Op {
			case '-':
				b.WriteString(`<del class="del">[-` + e(g.Text) + `-]</del>`)
			case '+':
				b.WriteString(`<ins class="add">{+` + e(g.Text) + `+}</ins>`)
			default:
				b.WriteString(e(g.Text))
			}
		}
		return b.String()
	}
	cls := map[byte]string{'+': "add", '-': "del", '~': "chg", '=': "same"}[r.Op]
	return `<span class="` + cls + `">` + e(storymodel.DiffRowText(r)) + `</span>`
}

func htmlArmTable(st storymodel.StoryStep, e func(string) string) string {
	arms, heads, labels := armColumns(st)
	if labels == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("<table><tr><th></th>")
	for _, h := range heads {
		b.WriteString("<th>" + h + "</th>")
	}
	b.WriteString("</tr>\n")
	for i, l := range labels {
		b.WriteString("<tr><th>" + e(l[0]) + "</th>")
		for _, a := range arms {
			if a == nil {
				b.WriteString("<td>—</td>")
				continue
			}
			v := storymodel.ArmFields(a)[i][1]
			cls := ""
			if l[0] == "outcome" {
				cls = ` class="` + grantClass(!a.Unauthorized && a.ProviderError == "") + `"`
			}
			b.WriteString("<td" + cls + ">" + e(v) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	return b.String()
}
