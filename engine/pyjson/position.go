package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DecodeErrorAt describes a decoding error of text with its line and column ("line L, column
// C: not a JSON document: ..."), so a user can find it in the file; an error without an offset
// is described without one.
func DecodeErrorAt(text []byte, err error) string {
	var ie *InputError
	if errors.As(err, &ie) {
		return fmt.Sprintf("line %d, column %d: %v", ie.Line, ie.Column, ie)
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	var at int64
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included: point at that byte.
		at = se.Offset - 1
	case errors.As(err, &te):
		at = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		// A document cut short ends at the file's end: point there.
		at = int64(len(text))
	default:
		return "not a JSON document: " + err.Error()
	}
	at = max(0, min(at, int64(len(text))))
	line := 1 + bytes.Count(text[:at], []byte("\n"))
	col := int(at) - bytes.LastIndexByte(text[:at], '\n')
	return fmt.Sprintf("line %d, column %d: not a JSON document: %v", line, col, err)
}
