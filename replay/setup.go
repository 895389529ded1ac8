package replay

import (
	"errors"
	"fmt"
	"os"

	"github.com/ealscope/ealscope/engine/audience"
	"github.com/ealscope/ealscope/runs/rundir"
	"strings"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/domains/multiparty"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// BuiltinCorpus is Settings.Corpus for the domain's built-in corpus.
const BuiltinCorpus = "builtin"

// BuiltinMultipartyCorpus is Settings.Corpus for the domain's built-in multi-party corpus
// (docs/AUDIENCE.md): its audience sidecar travels in the run directory.
const BuiltinMultipartyCorpus = "builtin_multiparty"

// Prepare resolves settings into run options: it loads the domain and corpus (checking the
// corpus hash when the settings carry one, as a resumed run's do), selects cases and
// conditions, and builds the writer and executor (model names resolve through the config).
func Prepare(st Settings, cfg *Config, retry RetryPolicy, version string) (Options, error) {
	d, err := domains.Get(st.Domain)
	if err != nil {
		return Options{}, err
	}
	name, data := d.BuiltinCorpus()
	var sidecar []byte
	switch st.Corpus {
	case "", BuiltinCorpus:
	case BuiltinMultipartyCorpus:
		mp, err := multiparty.Builtin(d.ID())
		if err != nil {
			return Options{}, err
		}
		name, data, sidecar = mp.Name, mp.Data, mp.SidecarData
	default:
		name = st.Corpus
		if data, err = rundir.ReadRegularFile(st.Corpus, rundir.MaxInputFileBytes); err != nil {
			return Options{}, err
		}
		// A sidecar beside the corpus file travels with the run.
		if sidecar, err = readSidecarBeside(st.Corpus); err != nil {
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
		Seed: st.Seed, Version: version, Settings: st, Families: families, Sidecar: sidecar,
	}
	models := Models{Config: cfg, Retry: retry}
	w, err := models.Writers(st.Writer, st.FaultRate, families, version)
	if err != nil {
		return Options{}, err
	}
	opts.Writer, opts.EventWriter, opts.Families = w.Writer, w.EventWriter, w.Families
	if opts.Executor, err = models.Executor(d, st.Executor, st.Seed); err != nil {
		return Options{}, err
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

// readSidecarBeside reads the audience sidecar beside a corpus file (nil when there is none).
func readSidecarBeside(corpus string) ([]byte, error) {
	path := multiparty.SidecarName(corpus)
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return rundir.ReadRegularFile(path, audience.MaxBytes)
}
