package replay

import (
	"fmt"
	"github.com/ealscope/ealscope/runs/rundir"
	"strings"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// BuiltinCorpus is Settings.Corpus for the domain's built-in corpus.
const BuiltinCorpus = "builtin"

// Prepare resolves settings into run options: it loads the domain and corpus (checking the
// corpus hash when the settings carry one, as a resumed run's do), selects cases and
// conditions, and builds the writer and executor (model names resolve through the config).
func Prepare(st Settings, cfg *Config, retry RetryPolicy, version string) (Options, error) {
	d, err := domains.Get(st.Domain)
	if err != nil {
		return Options{}, err
	}
	name, data := d.BuiltinCorpus()
	if st.Corpus != "" && st.Corpus != BuiltinCorpus {
		name = st.Corpus
		if data, err = rundir.ReadRegularFile(st.Corpus, rundir.MaxInputFileBytes); err != nil {
			return Options{}, err
		}
	}
	sum := pyjson.SHA256Hex(data)
	if st.CorpusSHA256 != "" && st.CorpusSHA256 != sum {
		return Options{}, fmt.Errorf("%s: sha256 %s, the run was made from %s", name, sum, st.CorpusSHA256)
	}
	st.CorpusSHA256 = sum
	all, err := d.ParseCorpus(name, data)
	if err != nil {
		return Options{}, err
	}
	cases, err := selectCases(name, all, st.Cases)
	if err != nil {
		return Options{}, err
	}
	conds, err := engine.ParseConditions(strings.Join(st.Conditions, ","))
	if err != nil {
		return Options{}, err
	}
	families := st.Faults
	if families == nil {
		families = FaultFamilies
	}
	if st.FaultRate < 0 || st.FaultRate > 1 {
		return Options{}, fmt.Errorf("--fault-rate must be between 0 and 1, got %v", st.FaultRate)
	}
	opts := Options{
		Domain: d, Cases: cases, Conditions: conds, WriterRuns: st.WriterRuns, ExecutorRuns: st.ExecutorRuns,
		Seed: st.Seed, Version: version, Settings: st, Families: families,
	}
	// One client per model entry, so a model that is both writer and executor keeps one set of
	// limits (replica slots, requests and tokens per minute).
	clients := map[string]*ModelClient{}
	client := func(m Model) *ModelClient {
		if clients[m.Name] == nil {
			clients[m.Name] = NewModelClient(m, retry, nil)
		}
		return clients[m.Name]
	}
	switch st.Writer {
	case "", "scripted":
		opts.Writer = &ScriptedWriter{FaultRate: st.FaultRate, Families: families, Version: version}
		opts.EventWriter = &ScriptedEventWriter{FaultRate: st.FaultRate, Version: version}
	default:
		m, err := cfg.Lookup(st.Writer)
		if err != nil {
			return Options{}, err
		}
		opts.Writer = NewModelWriter(client(m))
		opts.EventWriter = NewModelEventWriter(client(m))
		opts.Families = nil
	}
	switch st.Executor {
	case "", "builtin":
		opts.Executor = NewBuiltinExecutor(d, st.Seed)
	default:
		m, err := cfg.Lookup(st.Executor)
		if err != nil {
			return Options{}, err
		}
		opts.Executor = NewModelExecutor(d, client(m))
	}
	return opts, nil
}

func selectCases(name string, all []*engine.Case, ids []string) ([]*engine.Case, error) {
	if len(ids) == 0 {
		return all, nil
	}
	byID := map[string]*engine.Case{}
	for _, c := range all {
		byID[c.ID] = c
	}
	var out []*engine.Case
	for _, id := range ids {
		c, ok := byID[id]
		if !ok {
			return nil, fmt.Errorf("%s: no case %q", name, id)
		}
		out = append(out, c)
	}
	return out, nil
}
