package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ealscope/ealscope/tui/storymodel"
)

func TestMarkdownEscaping(t *testing.T) {
	hostile := "x ``` y ```` z\n```\n# not a heading"
	f := mdFence("text", hostile)
	if !strings.HasPrefix(f, "`````text\n") || !strings.HasSuffix(f, "\n`````\n\n") {
		t.Errorf("fence can be closed from inside: %q", f)
	}
	for in, want := range map[string]string{
		"<script>alert(1)</script>": `\<script\>alert(1)\</script\>`,
		"a|b *c* [d](e) `f`":        "a\\|b \\*c\\* \\[d\\](e) \\`f\\`",
		"esc \x1b]0;t\x07 end":      "esc ␛ end",
		// GFM autolinks: none may survive in untrusted text.
		"see https://evil.test/x and WWW.evil.test": `see https\://evil.test/x and WWW\.evil.test`,
		"mail mailto:a@b.test or c@d.test":          `mail mailto\:a\@b.test or c\@d.test`,
	} {
		if got := mdEscape(in); got != want {
			t.Errorf("mdEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExportNamesFitLongIDs: a 400-character case id (accepted by check, run and import)
// gives SVG frame names within the file-name limit that can be created, distinct from those
// of another long id sharing the prefix.
func TestExportNamesFitLongIDs(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("c", 400)
	a := FileStem(storymodel.Story{Chain: storymodel.ChainKey{CaseID: long + "a", ConditionID: "incremental_typed"}, Block: 3})
	b := FileStem(storymodel.Story{Chain: storymodel.ChainKey{CaseID: long + "b", ConditionID: "incremental_typed"}, Block: 3})
	if a == b {
		t.Fatalf("two long ids share the stem %s", a)
	}
	for _, stem := range []string{a, b} {
		name := stem + "-12-" + strings.Repeat("k", 40) + ".svg"
		if len(name) > 255 {
			t.Fatalf("name of %d bytes", len(name))
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte("<svg/>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if short := FileStem(storymodel.Story{Chain: storymodel.ChainKey{CaseID: "case_1", ConditionID: "faithful_typed", WriterRunID: 2}, Block: 4}); short != "case_1-faithful_typed-run2-block4" {
		t.Errorf("a short stem changed: %s", short)
	}
}
