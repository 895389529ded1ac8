package finance

import (
	"bytes"
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
	"github.com/ealscope/ealscope/engine"
)

// TestGenerateDeterministic: the same seed gives the same bytes, another seed other bytes,
// and the first k cases do not depend on n.
func TestGenerateDeterministic(t *testing.T) {
	a := ealtest.CheckSeededBytes(t, GenerateCorpus, 8, 42)
	few, err := Generate(3, 42)
	if err != nil {
		t.Fatal(err)
	}
	many, err := Generate(8, 42)
	if err != nil {
		t.Fatal(err)
	}
	for i := range few {
		if string(mustMarshal(t, few[i])) != string(mustMarshal(t, many[i])) {
			t.Errorf("case %d differs between n=3 and n=8", i)
		}
	}
	var streamed bytes.Buffer
	if err := WriteCorpus(&streamed, 8, 42); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamed.Bytes(), a) {
		t.Errorf("WriteCorpus differs from GenerateCorpus:\n%s\n---\n%s", tail(streamed.Bytes()), tail(a))
	}
	if _, err := Generate(-1, 1); err == nil {
		t.Error("negative count accepted")
	}
}

func mustMarshal(t *testing.T, c *Case) []byte {
	t.Helper()
	b, err := MarshalCorpus(corpusOf(GeneratedCorpusVersion, []*Case{c}))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGeneratedCorporaRead: generated corpora read back strictly, every script appears over
// a few dozen cases, and every pair is separated.
func TestGeneratedCorporaRead(t *testing.T) {
	data, err := GenerateCorpus(30, 7)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := Domain{}.ParseCorpus("generated.json", data)
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[string]int{}
	for _, c := range cases {
		scripts[c.Lifecycle]++
		verdicts, err := engine.OracleProbes(Domain{}, c, -1)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range verdicts {
			if v.Verdict.Authorized != (v.Probe.Scope == "in_scope") {
				t.Errorf("%s %s: %+v", c.ID, v.Probe.ID, v.Verdict)
			}
		}
	}
	for _, s := range Scripts {
		if scripts[s] == 0 {
			t.Errorf("no generated %s case", s)
		}
	}
}

func tail(b []byte) []byte {
	if len(b) > 300 {
		return b[len(b)-300:]
	}
	return b
}
