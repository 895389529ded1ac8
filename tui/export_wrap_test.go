package tui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHTMLLabelsNeverBreakMidWord opens the HTML export of the cybersecurity demo chain in
// headless Chromium at a narrow width, inside a page whose script measures every label cell
// (table headers and first columns): a word whose text spans two lines was broken mid-word
// ("outcom/e"). The export's own policy forbids scripts, so the measuring page loads it in
// a frame.
func TestHTMLLabelsNeverBreakMidWord(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		t.Skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it): skipping the browser check of the HTML export")
	}
	s, _ := demoStore(t, "cybersecurity")
	key := demoChain(t, "cybersecurity")
	files, err := Export(context.Background(), ExportOptions{Store: s, Rerun: s, Chain: key, Block: -1, Format: "html", Dark: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "export.html"), files[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	measure := `<!doctype html><html><body style="margin:0">
<iframe id="f" src="export.html" style="width:520px;height:6000px;border:0"></iframe>
<pre id="result">pending</pre>
<script>
document.getElementById("f").onload = function () {
  var doc = this.contentDocument, broken = [], cells = 0;
  doc.querySelectorAll("th, td:first-child").forEach(function (cell) {
    cells++;
    var walk = doc.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (var n = walk.nextNode(); n; n = walk.nextNode()) {
      var re = /\S+/g, m;
      while ((m = re.exec(n.data))) {
        var r = doc.createRange();
        r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
        var tops = {};
        Array.prototype.forEach.call(r.getClientRects(), function (q) { if (q.width > 0) tops[Math.round(q.top)] = 1; });
        if (Object.keys(tops).length > 1) broken.push(m[0]);
      }
    }
  });
  document.getElementById("result").textContent = "cells=" + cells + " broken=" + JSON.stringify(broken);
};
</script></body></html>`
	page := filepath.Join(dir, "measure.html")
	if err := os.WriteFile(page, []byte(measure), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(chromium(t, bin, "--allow-file-access-from-files", "--virtual-time-budget=10000", "--window-size=600,2000", "--dump-dom", "file://"+page))
	m := regexp.MustCompile(`cells=(\d+) broken=(\[.*?\])`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the measuring page did not report:\n%s", dom[:min(len(dom), 2000)])
	}
	if m[1] == "0" {
		t.Fatal("no label cells measured")
	}
	if m[2] != "[]" {
		t.Errorf("label cells break words mid-word at 520px: %s", strings.ReplaceAll(m[2], "&quot;", `"`))
	}
	t.Logf("%s label cells measured", m[1])
}
