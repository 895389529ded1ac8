package finance

import (
	"bytes"
	"encoding/json"
)

// caseLines finds the 1-based line on which each element of the top-level "cases" array
// starts, so messages and the engine's Case.Line point into the file. It returns nil when the
// document does not have that shape (the strict reader then reports why).
func caseLines(data []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "cases" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil
		}
		var lines []int
		for dec.More() {
			off := dec.InputOffset()
			// InputOffset is the end of the previous token; the element starts after the
			// separator and white space.
			for off < int64(len(data)) && (data[off] == ',' || data[off] == ' ' || data[off] == '\n' || data[off] == '\r' || data[off] == '\t') {
				off++
			}
			lines = append(lines, 1+bytes.Count(data[:off], []byte("\n")))
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
		}
		return lines
	}
	return nil
}
