package procurement

import (
	"testing"

	"github.com/ealscope/ealscope/domains/internal/ealtest"
)

// The built-in corpus is what users see first: every case must pass the strict validators,
// reproduce its authoring hash, cover the lifecycles the issue names, and every in-scope probe
// must be authorized and every out-of-scope probe denied at the final block.
func TestBuiltinCorpus(t *testing.T) {
	d := Domain{}
	cases := ealtest.BuiltinAtLeast(t, d, 8)
	lifecycles := map[string]int{}
	for _, c := range cases {
		src := c.Source.(*Case)
		if c.CorpusVersion != BuiltinCorpusVersion {
			t.Errorf("%s: corpus version %s", c.ID, c.CorpusVersion)
		}
		if ok, err := AuthoringHashMatches(src); err != nil || !ok {
			t.Errorf("%s: authoring hash does not reproduce (%v)", c.ID, err)
		}
		lifecycles[c.Lifecycle]++
		turns := 0
		for _, b := range c.Blocks {
			turns += len(b.Turns)
		}
		if len(c.Blocks) < 5 || len(c.Blocks) > 8 || turns < 40 || turns > 100 {
			t.Errorf("%s: %d blocks, %d turns", c.ID, len(c.Blocks), turns)
		}
		ealtest.CheckPairsSeparated(t, d, c, "amount", "time", "category")
	}
	for _, lc := range []string{"issue_only", "issue_patch", "issue_revoke", "issue_revoke_replace"} {
		if lifecycles[lc] == 0 {
			t.Errorf("no built-in case with lifecycle %s", lc)
		}
	}
}
