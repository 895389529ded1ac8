package tui

import "github.com/ealscope/ealscope/tui/export"

// mdEscape is the Markdown export's escaping, as the tests of the export call it.
func mdEscape(s string) string { return export.MarkdownEscape(s) }
