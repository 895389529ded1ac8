package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPresentRenderExport: on the demo workspace, render --present prints a presentation
// step without a help bar, render leaves the help bar out off a terminal unless asked, a
// block or step outside the chain is an error naming the valid range, the configured theme
// colours the frame, open --present prints the first step, and export writes md, html and one
// SVG per step.
func TestPresentRenderExport(t *testing.T) {
	t.Setenv("EALSCOPE_CONFIG", "")
	t.Setenv("NO_COLOR", "")
	tmp, db, out, _ := demoWorkspace(t)
	head := strings.Fields(strings.SplitN(out, "\n", 2)[0])
	chain := []string{"--db", db, "--case", head[0], "--condition", head[2]}
	args := func(extra ...string) []string { return append(append([]string{}, chain...), extra...) }

	f, errs, code := runCLI(t, append([]string{"render"}, args("--present", "--step", "3", "--width", "80", "--height", "24", "--no-color")...)...)
	lines := strings.Split(strings.TrimRight(f, "\n"), "\n")
	if code != 0 || len(lines) != 24 || !strings.Contains(lines[0], "PRESENTING") || !strings.Contains(f, "[false authority]") {
		t.Fatalf("render --present (exit %d, %d lines): %s\n%s", code, len(lines), errs, f)
	}
	if strings.Contains(f, "next block") || strings.Contains(f, "\x1b") {
		t.Errorf("presentation frame carries the help bar or escapes:\n%s", f)
	}

	f, _, _ = runCLI(t, append([]string{"render"}, args("--no-color")...)...)
	withBar, _, _ := runCLI(t, append([]string{"render"}, args("--no-color", "--help-bar")...)...)
	if strings.Contains(f, "next block") || !strings.Contains(withBar, "next block") {
		t.Errorf("off a terminal render should drop the help bar unless --help-bar:\n%s\n---\n%s", f, withBar)
	}
	if n := strings.Count(strings.TrimRight(f, "\n"), "\n") + 1; n != 40 {
		t.Errorf("render without the help bar has %d lines, want 40", n)
	}

	for _, bad := range [][]string{args("--block", "99"), args("--present", "--step", "99")} {
		_, errs, code := runCLI(t, append([]string{"render"}, bad...)...)
		if code == 0 || !strings.Contains(errs, "does not exist") || !strings.Contains(errs, "..") {
			t.Errorf("render %v: exit %d, %q should name the valid range", bad[len(bad)-2:], code, errs)
		}
	}
	_, errs, code = runCLI(t, append([]string{"render"}, args("--pane", "sidebar")...)...)
	if code == 0 || !strings.Contains(errs, "timeline") {
		t.Errorf("unknown pane: exit %d, %q should list the panes", code, errs)
	}

	// --color: into a pipe render writes plain text unless asked for the colours.
	dark, _, _ := runCLI(t, append([]string{"render"}, args("--color")...)...)
	cfg := writeFile(t, filepath.Join(tmp, "config.toml"), []byte("theme = \"light\"\n"))
	light, errs, code := runCLI(t, append([]string{"render"}, args("--config", cfg, "--color")...)...)
	if code != 0 || light == dark || !strings.Contains(light, "38;2;31;35;40") {
		t.Errorf("the configured light theme is not applied (exit %d %s)", code, errs)
	}

	out, errs, code = runCLI(t, append([]string{"open"}, args("--present")...)...)
	if code != 0 || !strings.Contains(out, "PRESENTING") || !strings.Contains(out, "[turn]") {
		t.Errorf("open --present without a terminal should print the first step (exit %d): %s\n%s", code, errs, out)
	}

	for _, format := range []string{"md", "html"} {
		p := filepath.Join(tmp, "story."+format)
		_, errs, code := runCLI(t, append([]string{"export"}, args("--format", format, "--out", p)...)...)
		data, err := os.ReadFile(p)
		if code != 0 || err != nil || !strings.Contains(string(data), "The oracle-exact contrast") {
			t.Errorf("export --format %s: exit %d %s %v", format, code, errs, err)
		}
	}
	svgDir := filepath.Join(tmp, "svg")
	_, errs, code = runCLI(t, append([]string{"export"}, args("--format", "svg", "--out", svgDir)...)...)
	frames, _ := filepath.Glob(filepath.Join(svgDir, "*.svg"))
	if code != 0 || len(frames) != 6 {
		t.Errorf("export --format svg: exit %d, %d frames: %s", code, len(frames), errs)
	}
}
