package finance

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ealscope/ealscope/domains/internal/casegen"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// The seeded generator of synthetic finance cases and the built-in corpus. Every case passes
// the strict reader, and the generator checks that the final ledger authorizes each in-scope
// probe and denies each out-of-scope one, reporting a failure as a bug. Output depends only on
// (n, seed): math/rand/v2's PCG, integer arithmetic only, no map iteration into the output, no
// clock.

// GeneratedCorpusVersion is the corpus_version of generated corpora.
const GeneratedCorpusVersion = "generated_ealscope_v1"

const (
	genMasterStream = 0x65616c73636f7065 // "ealscope"
	genCaseStream   = 0x66696e616e636521 // "finance!"
)

var (
	genOrganizations = []string{"Harbor County Pension Fund", "Northgate University Endowment", "Lakeside Water Authority", "Cedar Ridge Insurance Mutual", "Port Aster Transit Trust", "Willow Creek Hospital Foundation"}
	genPortfolios    = []string{"Liability Hedge", "Core Fixed Income", "Debt Service Reserve", "Cash Enhancement", "Duration Overlay", "Operating Reserve"}
	genInstruments   = []string{"UST-NOTE-2031", "MUNI-GO-2030", "CORP-IG-2029", "AGENCY-MBS-2033", "TIPS-2032", "MUNI-RB-2034", "UST-BILL-2027", "SUPRA-2030"}
)

// Generate returns n seeded synthetic cases. The same (n, seed) always gives the same cases,
// and the first k cases of Generate(n, seed) are those of Generate(k, seed).
func Generate(n int, seed uint64) ([]*Case, error) {
	master := rand.New(rand.NewPCG(seed, genMasterStream))
	return casegen.Take(n, func(i int) (*Case, error) { return nextGenerated(master, seed, i) })
}

// nextGenerated is case i of the seed: its own PCG seeded from the master stream.
func nextGenerated(master *rand.Rand, seed uint64, i int) (*Case, error) {
	r := rand.New(rand.NewPCG(master.Uint64(), genCaseStream))
	p := randomParams(r, fmt.Sprintf("fin_ealscope_gen_s%d_%05d", seed, i), i)
	return buildChecked(r, p, GeneratedCorpusVersion, fmt.Sprintf("%08x%05d", seed&0xffffffff, i))
}

func randomParams(r *rand.Rand, id string, index int) caseParams {
	org := genOrganizations[r.IntN(len(genOrganizations))]
	perm := r.Perm(len(genInstruments))
	acct := fmt.Sprintf("ACCT-G%03d", r.IntN(1000))
	return caseParams{
		id: id, family: genPortfolios[r.IntN(len(genPortfolios))] + " mandate", organization: org,
		portfolio: genPortfolios[r.IntN(len(genPortfolios))], account: acct,
		strategy: "STRAT-" + acct[5:] + "-CORE", strategy2: "STRAT-" + acct[5:] + "-TACTICAL",
		instruments: [3]string{genInstruments[perm[0]], genInstruments[perm[1]], genInstruments[perm[2]]},
		start:       time.Date(2026, 6, 1+r.IntN(20), 8, 0, 0, 0, time.UTC),
		blocks:      12 + r.IntN(5), turnsPerBlock: 5 + r.IntN(4), script: Scripts[r.IntN(len(Scripts))],
		familyIndex: index, stakes: 400_000 + 25_000*r.IntN(20),
	}
}

// buildChecked builds a case and checks it the way any corpus case is checked: serialised,
// read back strictly, and every probe pair separated by the oracle.
func buildChecked(r *rand.Rand, p caseParams, corpusVersion, ns string) (*Case, error) {
	b := &caseBuilder{r: r, p: p, ns: ns}
	c, err := b.build()
	if err == nil {
		c.CorpusVersion = corpusVersion
		c.Metadata["corpus_version"] = corpusVersion
		err = checkGenerated(c, corpusVersion)
	}
	if err != nil {
		return nil, fmt.Errorf("generator bug: case %s: %w", p.id, err)
	}
	return c, nil
}

func checkGenerated(c *Case, corpusVersion string) error {
	data, err := MarshalCorpus(corpusOf(corpusVersion, []*Case{c}))
	if err != nil {
		return err
	}
	cases, err := Domain{}.ParseCorpus("generated", data)
	if err != nil {
		return err
	}
	return casegen.CheckScopes(Domain{}, cases[0])
}

func corpusOf(version string, cases []*Case) *Corpus {
	return &Corpus{
		SchemaVersion: CorpusSchemaVersion, CorpusVersion: version, ReleaseID: genRelease,
		Mechanism: genMechanism, Split: "builtin", Cases: cases,
	}
}

const (
	genRelease   = "ealscope_finance_v1"
	genMechanism = "distributed_lifecycle_with_stale_operational_restatements"
)

// GenerateCorpus returns Generate(n, seed) as a corpus file.
func GenerateCorpus(n int, seed uint64) ([]byte, error) {
	cases, err := Generate(n, seed)
	if err != nil {
		return nil, err
	}
	return MarshalCorpus(corpusOf(GeneratedCorpusVersion, cases))
}

// WriteCorpus streams GenerateCorpus(n, seed) to w one case at a time, so memory does not grow
// with n: "cases" is the first key of the sorted document, so each case can be written as it
// is generated, re-indented to its place, and the header keys follow.
func WriteCorpus(w io.Writer, n int, seed uint64) error {
	if n < 0 {
		return fmt.Errorf("generate: negative case count %d", n)
	}
	if _, err := io.WriteString(w, "{\n  \"cases\": ["); err != nil {
		return err
	}
	master := rand.New(rand.NewPCG(seed, genMasterStream))
	err := casegen.Each(n, func(i int) (*Case, error) { return nextGenerated(master, seed, i) }, func(i int, c *Case) error {
		tree, err := pyjson.Retree(c.Tree())
		if err != nil {
			return err
		}
		b, err := pyjson.DumpPy(tree, pyjson.Indented)
		if err != nil {
			return err
		}
		sep := "\n    "
		if i > 1 {
			sep = ",\n    "
		}
		_, err = io.WriteString(w, sep+strings.ReplaceAll(string(b), "\n", "\n    "))
		return err
	})
	if err != nil {
		return err
	}
	head, err := pyjson.DumpPy(map[string]any{
		"corpus_version": GeneratedCorpusVersion, "mechanism": genMechanism, "release_id": genRelease,
		"schema_version": CorpusSchemaVersion, "split": "builtin",
	}, pyjson.Indented)
	if err != nil {
		return err
	}
	closing := "\n  ],"
	if n == 0 {
		closing = "],"
	}
	_, err = io.WriteString(w, closing+strings.TrimPrefix(string(head), "{")+"\n")
	return err
}

// builtinParams are the six built-in cases, one per script, written for this project.
var builtinParams = []caseParams{
	{id: "fin_ealscope_builtin_harbor_liability_hedge", family: "Pension liability hedge", organization: "Harbor County Pension Fund", portfolio: "Liability Hedge",
		account: "ACCT-B101", strategy: "STRAT-B101-HEDGE", strategy2: "STRAT-B101-OVERLAY", instruments: [3]string{"UST-NOTE-2031", "TIPS-2032", "UST-BILL-2027"},
		start: time.Date(2026, 6, 2, 8, 0, 0, 0, time.UTC), blocks: 14, turnsPerBlock: 6, script: "narrowed", familyIndex: 1, stakes: 525_000},
	{id: "fin_ealscope_builtin_northgate_endowment", family: "Endowment core bonds", organization: "Northgate University Endowment", portfolio: "Core Fixed Income",
		account: "ACCT-B102", strategy: "STRAT-B102-CORE", strategy2: "STRAT-B102-TACTICAL", instruments: [3]string{"CORP-IG-2029", "AGENCY-MBS-2033", "SUPRA-2030"},
		start: time.Date(2026, 6, 4, 8, 0, 0, 0, time.UTC), blocks: 13, turnsPerBlock: 7, script: "revoked_reissued", familyIndex: 2, stakes: 610_000},
	{id: "fin_ealscope_builtin_lakeside_debt_reserve", family: "Water revenue reserve", organization: "Lakeside Water Authority", portfolio: "Debt Service Reserve",
		account: "ACCT-B103", strategy: "STRAT-B103-RESERVE", strategy2: "STRAT-B103-LIQUIDITY", instruments: [3]string{"MUNI-RB-2034", "MUNI-GO-2030", "UST-BILL-2027"},
		start: time.Date(2026, 6, 6, 8, 0, 0, 0, time.UTC), blocks: 12, turnsPerBlock: 6, script: "replaced", familyIndex: 3, stakes: 450_000},
	{id: "fin_ealscope_builtin_cedar_ridge_cash", family: "Insurer cash enhancement", organization: "Cedar Ridge Insurance Mutual", portfolio: "Cash Enhancement",
		account: "ACCT-B104", strategy: "STRAT-B104-CASH", strategy2: "STRAT-B104-DURATION", instruments: [3]string{"UST-BILL-2027", "CORP-IG-2029", "AGENCY-MBS-2033"},
		start: time.Date(2026, 6, 8, 8, 0, 0, 0, time.UTC), blocks: 15, turnsPerBlock: 5, script: "concurrent", familyIndex: 4, stakes: 700_000},
	{id: "fin_ealscope_builtin_port_aster_overlay", family: "Transit duration overlay", organization: "Port Aster Transit Trust", portfolio: "Duration Overlay",
		account: "ACCT-B105", strategy: "STRAT-B105-OVERLAY", strategy2: "STRAT-B105-HEDGE", instruments: [3]string{"TIPS-2032", "UST-NOTE-2031", "SUPRA-2030"},
		start: time.Date(2026, 6, 10, 8, 0, 0, 0, time.UTC), blocks: 16, turnsPerBlock: 6, script: "repeated_patches", familyIndex: 5, stakes: 575_000},
	{id: "fin_ealscope_builtin_willow_creek_reserve", family: "Hospital operating reserve", organization: "Willow Creek Hospital Foundation", portfolio: "Operating Reserve",
		account: "ACCT-B106", strategy: "STRAT-B106-RESERVE", strategy2: "STRAT-B106-GROWTH", instruments: [3]string{"AGENCY-MBS-2033", "MUNI-GO-2030", "CORP-IG-2029"},
		start: time.Date(2026, 6, 12, 8, 0, 0, 0, time.UTC), blocks: 14, turnsPerBlock: 7, script: "replaced_then_patched", familyIndex: 6, stakes: 640_000},
}

// BuildBuiltinCorpus builds the built-in corpus file (what corpus/builtin_v1.json holds).
func BuildBuiltinCorpus() ([]byte, error) {
	cases := make([]*Case, 0, len(builtinParams))
	for i, p := range builtinParams {
		r := rand.New(rand.NewPCG(uint64(i+1), genCaseStream))
		c, err := buildChecked(r, p, BuiltinCorpusVersion, fmt.Sprintf("b%03d", i+1))
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	return MarshalCorpus(corpusOf(BuiltinCorpusVersion, cases))
}
