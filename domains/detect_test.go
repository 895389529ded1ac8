package domains

import (
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains/cybersecurity"
	"github.com/ealscope/ealscope/domains/finance"
	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/domains/procurement"
)

func TestDetectBuiltins(t *testing.T) {
	for _, id := range []string{procurement.DomainID, cybersecurity.DomainID} {
		d, _ := Get(id)
		name, data := d.BuiltinCorpus()
		got, err := Detect(name, data)
		if err != nil || got.ID() != id {
			t.Errorf("%s: detected %v, %v", name, got, err)
		}
	}
	gen, err := cybersecurity.GenerateCorpus(2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d, err := Detect("gen.json", gen); err != nil || d.ID() != cybersecurity.DomainID {
		t.Errorf("generated cybersecurity corpus: %v %v", d, err)
	}
}

func TestDetectRejects(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"empty", "  \n", "empty file"},
		{"list", "[1,2]", "expected a JSON object"},
		{"jsonl other", "{\"a\":1}\n{\"a\":2}\n", "is not a case of any domain"},
		{"no cases", "{\"domain_id\":\"cybersecurity\"}", "no \"cases\""},
		{"unknown domain", "{\"domain_id\":\"space\",\"corpus_version\":\"v\",\"cases\":[]}", "unknown domain \"space\""},
		{"domain not a string", "{\"domain_id\":7,\"cases\":[]}", "field domain_id"},
		{"anonymous", "{\"corpus_version\":\"v\",\"cases\":[]}", "is not the corpus form of any domain"},
		{"broken", "{\"cases\": [", "not a corpus"},
	} {
		_, err := Detect("f.json", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f.json") {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestDetectEALFiles(t *testing.T) {
	for name, want := range map[string]string{
		"domains__procurement__data__calibration_v1.jsonl":      procurement.DomainID,
		"cybersecurity_benchmark_v1__claim_identity.cases.json": cybersecurity.DomainID,
	} {
		d, err := Detect(name, ealtest.Read(t, name))
		if err != nil || d.ID() != want {
			t.Errorf("%s: %v %v", name, d, err)
		}
	}
	const fin = "domains__finance__data__benchmark_v1__airport_bond_reserve.json"
	if d, err := Detect(fin, ealtest.Read(t, fin)); err != nil || d.ID() != finance.DomainID {
		t.Errorf("finance: %v %v", d, err)
	}
}
