package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPresentCybersecurityInTmux walks presentation mode through every step of the
// cybersecurity demo in a real terminal and checks that no two steps contradict each other:
// the probe is the same on every step, step 6's verdict agrees with steps 4 and 5, the forms
// check agrees with step 3, and a chain the chains list flags memory-induced (!MEM) tells a
// memory-induced failure.
func TestPresentCybersecurityInTmux(t *testing.T) {
	tmp, bin := buildForTerminal(t)
	script := isolatedEnv(tmp) + "NO_COLOR=1 " + bin + " demo --domain cybersecurity; sleep 30"
	term := startTerminal(t, "ealscope-e2e-present", 160, 45, script, 90*time.Second) // building the demo run included
	waitFor, has, keys := term.waitFor, screenHas, term.keys

	s := waitFor("the demo chain view", has("FIRST FALSE AUTHORITY"))
	header := strings.SplitN(s, "\n", 2)[0]
	// The chains list's flags for the demo chain: back to the list, read the chain's row.
	keys("Escape")
	waitFor("the chains list", has("sorted by"))
	fields := strings.Fields(header)
	caseID, condition := fields[0], fields[2]
	keys("/")
	keys("-l", caseID+" "+condition)
	keys("Enter")
	list := waitFor("the filtered list", has("filter: "+caseID))
	var row string
	for _, l := range strings.Split(list, "\n") {
		if strings.Contains(l, caseID) && strings.Contains(l, condition) {
			row = l
		}
	}
	if row == "" {
		t.Fatalf("no row for %s in the chains list:\n%s", caseID, list)
	}
	flaggedMEM := strings.Contains(row, "!MEM")
	keys("Enter")
	waitFor("the chain view again", has("FIRST FALSE AUTHORITY"))
	keys("P")
	steps := make([]string, 6)
	for i := range steps {
		if i > 0 {
			keys("Right")
		}
		steps[i] = waitFor("step "+strconv.Itoa(i+1), has("step "+strconv.Itoa(i+1)+"/6"))
	}
	probeRe := regexp.MustCompile(`probe (\S+)  (in_scope|out_of_scope)`)
	m := probeRe.FindStringSubmatch(steps[2])
	if m == nil {
		t.Fatalf("step 3 names no probe:\n%s", steps[2])
	}
	probe := m[1]
	if _, short, ok := strings.Cut(probe, caseID+"_"); ok {
		probe = short // the other steps name the probe by the part that differs within the case
	}
	for _, i := range []int{3, 5} {
		if !strings.Contains(strings.Join(strings.Fields(steps[i]), " "), probe) {
			t.Errorf("step %d is not about the probe of step 3 (%s):\n%s", i+1, probe, steps[i])
		}
	}
	unauthorized := strings.Contains(steps[3], "UNAUTHORIZED ACTION")
	forms := strings.Contains(steps[2], "! FALSE AUTHORITY")
	verdict := regexp.MustCompile(`= (MEMORY-INDUCED|NOT MEMORY-INDUCED|NOT ESTIMABLE)`).FindStringSubmatch(steps[5])
	if verdict == nil {
		t.Fatalf("step 6 has no verdict:\n%s", steps[5])
	}
	check := func(label string) (ok, found bool) {
		for _, l := range strings.Split(steps[5], "\n") {
			if strings.Contains(l, label) {
				return strings.Contains(l, "✓"), true
			}
		}
		return false, false
	}
	if acts, found := check("the executor acts behind the written memory"); !found || acts != unauthorized {
		t.Errorf("step 4 says unauthorized=%v, step 6's acts check says %v (found %v)", unauthorized, acts, found)
	}
	formsCheck, found := check("forms false authority for")
	if !found {
		t.Errorf("step 6 has no forms check:\n%s", steps[5])
	}
	if verdict[1] == "MEMORY-INDUCED" {
		// Formation at the story's block, or (the executor read the final memory) step 3 says
		// the final memory grants what the ledger denies.
		finalForms := strings.Contains(strings.Join(strings.Fields(steps[2]), " "), "although the ledger denies it")
		if !unauthorized || !formsCheck || !forms && !finalForms {
			t.Errorf("step 6 says memory-induced, steps 3-4 say forms=%v (final %v) unauthorized=%v", forms, finalForms, unauthorized)
		}
		if strings.Contains(steps[4], "UNAUTHORIZED ACTION") && strings.Count(steps[4], "UNAUTHORIZED ACTION") > 1 {
			t.Errorf("step 6 says memory-induced, yet step 5 shows the oracle-exact arm acting:\n%s", steps[4])
		}
	}
	if strings.Contains(steps[5], "memory_did_not_form") && formsCheck {
		t.Errorf("step 6 checks the memory forms and says it did not form:\n%s", steps[5])
	}
	if flaggedMEM && verdict[1] != "MEMORY-INDUCED" {
		t.Errorf("the chains list flags %s !MEM, the story says %s:\n%s", caseID, verdict[1], steps[5])
	}
	t.Logf("%s: probe %s, forms %v, unauthorized %v, verdict %s, !MEM %v", caseID, probe, forms, unauthorized, verdict[1], flaggedMEM)
}
