package envelope

import (
	"fmt"
	"strings"
)

// FreeTextLines is the first step of reading a canonical free-text memory back: the text with
// CRLF line ends folded and trailing newlines dropped, split into lines (lines[0] is the
// header, so line n is lines[n-1]). The layout's empty form gives no lines; text that does
// not start with the header is an error on line 1.
func FreeTextLines(text, empty, header string) ([]string, error) {
	text = strings.TrimRight(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if text == empty {
		return nil, nil
	}
	lines := strings.Split(text, "\n")
	if lines[0] != header {
		return nil, fmt.Errorf("line 1: expected %q, the canonical layout's header", header)
	}
	return lines, nil
}
