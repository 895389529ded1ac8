package replay

import (
	"fmt"

	"github.com/ealscope/ealscope/engine"
)

// The one place that turns a writer or executor name into the thing that answers: "scripted"
// and "builtin" need no network, any other name is a model entry of the config file and gets
// an HTTP client here. Runs (Prepare), re-runs and the safeguard lab, from the command line
// or the TUI, all resolve names through Models, so a model is configured, retried and
// rate-limited the same way wherever it is used.

// Names of the executor and writer that need no model.
const (
	BuiltinExecutorName = "builtin"
	ScriptedWriterName  = "scripted"
)

// Models resolves writer and executor names against the config file's model entries. A nil
// Config knows no models: only the built-in executor and the scripted writer resolve.
type Models struct {
	Config *Config
	Retry  RetryPolicy
}

// IsBuiltinExecutor reports whether name selects the built-in executor ("" or "builtin").
func IsBuiltinExecutor(name string) bool { return name == "" || name == BuiltinExecutorName }

// lookup is the named model entry, or an error naming the config file and key.
func (m Models) lookup(name string) (Model, error) {
	if m.Config == nil {
		return Model{}, fmt.Errorf("models.%s: no such model entry (no config file is loaded)", name)
	}
	return m.Config.Lookup(name)
}

// Executor is the named executor for a domain: the built-in one at seed, or a configured
// model (whose calls carry their own per-request seeds).
func (m Models) Executor(d engine.Domain, name string, seed int64) (Executor, error) {
	if IsBuiltinExecutor(name) {
		return NewBuiltinExecutor(d, seed), nil
	}
	entry, err := m.lookup(name)
	if err != nil {
		return nil, err
	}
	return NewModelExecutor(d, NewModelClient(entry, m.Retry, nil)), nil
}

// Writers are the patch writer and the event writer of a run for the writer name. A model
// writer gets one client each (each its own concurrency limit), and no scripted fault
// families; the scripted writers inject the given families at faultRate.
type Writers struct {
	Writer      Writer
	EventWriter Writer
	// Families are the fault families the run records (nil for a model writer).
	Families []string
}

// Writers resolves the writer name ("" or "scripted", or a model entry).
func (m Models) Writers(name string, faultRate float64, families []string, version string) (Writers, error) {
	if name == "" || name == ScriptedWriterName {
		return Writers{
			Writer:      &ScriptedWriter{FaultRate: faultRate, Families: families, Version: version},
			EventWriter: &ScriptedEventWriter{FaultRate: faultRate, Version: version},
			Families:    families,
		}, nil
	}
	entry, err := m.lookup(name)
	if err != nil {
		return Writers{}, err
	}
	return Writers{Writer: NewModelWriter(NewModelClient(entry, m.Retry, nil)), EventWriter: NewModelEventWriter(NewModelClient(entry, m.Retry, nil))}, nil
}

// Judge is a configured model as a diagnosis judge (`ealscope diagnose --judge NAME`).
func (m Models) Judge(name string) (*ModelClient, error) {
	entry, err := m.lookup(name)
	if err != nil {
		return nil, err
	}
	return NewModelClient(entry, m.Retry, nil), nil
}
