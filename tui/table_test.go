package tui

import (
	"strings"
	"testing"

	"github.com/ealscope/ealscope/domains"
	"github.com/ealscope/ealscope/engine"
)

// TestLayoutKeepsFlagsAndNumbers: on a narrow screen the wide text columns give way and the
// kept columns (flags, counts) keep their whole content; with room, nothing is cut.
func TestLayoutKeepsFlagsAndNumbers(t *testing.T) {
	cols := []column{{title: "case", mid: true, grow: true, min: 10}, {title: "condition", min: 9}, {title: "run", keep: true}, {title: "flags", keep: true}}
	natural := []int{45, 17, 3, 27}
	for _, w := range []int{160, 80, 60} {
		widths := layoutColumns(cols, natural, w)
		sum := len(cols) - 1
		for _, x := range widths {
			sum += x
		}
		if sum > w {
			t.Errorf("w=%d: columns take %d cells", w, sum)
		}
		if widths[2] != 3 || widths[3] != 27 {
			t.Errorf("w=%d: kept columns cut: %v", w, widths)
		}
		if w >= 96 && (widths[0] < 45 || widths[1] != 17) {
			t.Errorf("w=%d: room enough, yet cut: %v", w, widths)
		}
	}
}

// TestDistinctIDsStayDistinct: ids sharing their case's prefix render by the part that
// differs, and a middle cut keeps both ends.
func TestDistinctIDsStayDistinct(t *testing.T) {
	c := "fin_ealscope_builtin_port_aster_overlay"
	ids := []string{"probe_" + c + "_instrument_inside", "probe_" + c + "_instrument_outside", "block_x"}
	got := distinctIDs(c, ids[:2])
	if got[0] != "instrument_inside" || got[1] != "instrument_outside" {
		t.Errorf("distinctIDs = %q", got)
	}
	if got := distinctIDs(c, ids); got[0] != ids[0] {
		t.Errorf("a list where one id lacks the case keeps ids whole: %q", got)
	}
	a, b := fitMiddle(ids[0], 16), fitMiddle(ids[1], 16)
	if a == b || !strings.HasPrefix(a, "probe_") || !strings.HasSuffix(b, "outside") {
		t.Errorf("middle cuts %q and %q", a, b)
	}
}

// TestLedgerComparesOrderFreeListsAsSets: a reordered list is no change, and a broadened one
// puts the added item first, marked, so a cut cell still shows it.
func TestLedgerComparesOrderFreeListsAsSets(t *testing.T) {
	d, err := domains.Get("cybersecurity")
	if err != nil {
		t.Fatal(err)
	}
	sc := d.Schema()
	var path string
	for _, f := range sc.Fields {
		if f.Kind == engine.KindList {
			path = f.Path
			break
		}
	}
	r := FieldRow{Field: path, Ledger: `["ep-prod-37","ep-prod-44"]`, Remembered: `["ep-prod-44","ep-prod-37"]`}
	l, m := ledgerCells(sc, r)
	if l != m || !strings.Contains(l, "same items") || strings.Contains(l, "[-") {
		t.Errorf("reordered list: ledger %q memory %q", l, m)
	}
	r.Remembered = `["ep-prod-37","ep-prod-44","ep-stage-66"]`
	l, m = ledgerCells(sc, r)
	if !strings.HasPrefix(m, "{+ep-stage-66+}") || strings.Contains(l, "[-") {
		t.Errorf("broadened list: ledger %q memory %q", l, m)
	}
}

// TestLedgerPairsRenamedRecord: a record the memory holds under another id pairs with the
// ledger record it resembles, and the doubled amount shows.
func TestLedgerPairsRenamedRecord(t *testing.T) {
	rows := []FieldRow{
		{AuthorizationID: "auth_07", Field: "__record__", Ledger: `{"authorization_id":"auth_07","issuer":"cfo","status":"active","scope":{"max_amount":18000,"vendor":"V"}}`, Remembered: "—"},
		{AuthorizationID: "other", Field: "__record__", Ledger: `{"authorization_id":"other","issuer":"ops","status":"revoked","scope":{"max_amount":5,"vendor":"W"}}`, Remembered: "—"},
		{AuthorizationID: "auth_07_claim", Field: "__record__", Ledger: "—", Remembered: `{"authorization_id":"auth_07_claim","issuer":"cfo","status":"active","scope":{"max_amount":36000,"vendor":"V"}}`},
	}
	p, ok := pairRenamedRecords(rows)[2]
	if !ok || p.ledgerID != "auth_07" {
		t.Fatalf("pairs: %+v", pairRenamedRecords(rows))
	}
	found := false
	for _, d := range p.diffs {
		found = found || d == [3]string{"scope.max_amount", "18000", "36000"}
	}
	if !found {
		t.Errorf("the amount difference is not listed: %v", p.diffs)
	}
}
