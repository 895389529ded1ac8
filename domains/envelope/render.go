package envelope

import "strings"

// RenderBlock renders one block as the writer and the full-history executor see it
// (docs/FORMATS.md 2.2, corpus.render_block): per turn "[{occurred_at} | {channel}]",
// "{speaker_label} [{turn_id}]", the text and a blank line; the whole right-stripped.
func RenderBlock(b Block) string {
	var sb strings.Builder
	for _, t := range b.Turns {
		sb.WriteString("[" + t.OccurredAt + " | " + t.Channel + "]\n")
		sb.WriteString(t.SpeakerLabel + " [" + t.TurnID + "]\n")
		sb.WriteString(t.Text + "\n\n")
	}
	return rstrip(sb.String())
}

// RenderHistory joins every block's rendering with a blank line.
func RenderHistory(blocks []Block) string {
	parts := make([]string, len(blocks))
	for i, b := range blocks {
		parts[i] = RenderBlock(b)
	}
	return strings.Join(parts, "\n\n")
}

// rstrip is Python's str.rstrip(): Unicode white space and the separators U+001C..U+001F.
func rstrip(s string) string {
	return strings.TrimRightFunc(s, isPySpace)
}

func isPySpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}
