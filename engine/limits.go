package engine

import "fmt"

// MaxLineBytes bounds one line of any JSONL input ealscope reads (a run artifact's row, a
// corpus case), its line end not counted. Every line reader applies it with the same
// message (LineTooLong); runs/rundir re-exports it.
const MaxLineBytes = 16 << 20

// LineTooLong is the refusal of a line past MaxLineBytes.
func LineTooLong(file string, line int) error {
	return fmt.Errorf("%s:%d: line longer than the limit of %d bytes", file, line, MaxLineBytes)
}
