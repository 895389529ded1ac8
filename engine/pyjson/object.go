package pyjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Field is one key of a JSON object with its value byte for byte, in file order.
type Field struct {
	Key string
	Raw json.RawMessage
}

// ReadObject reads one JSON object keeping its keys in order and its values byte for byte,
// so a row can be written back with only the fields a tool changes (EAL-Bench's diagnosis
// rows gain a judge this way).
func ReadObject(line []byte) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not an object")
	}
	var out []Field
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, Field{Key: kt.(string), Raw: raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the row")
	}
	return out, nil
}
