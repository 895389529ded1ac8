package procurement

import (
	"fmt"
	"time"

	"github.com/ealscope/ealscope/engine"
)

// The plan of one generated case: what caseGen.build draws before it writes any turn.

// casePlan is what build decides before it writes turns: the lifecycle and its blocks, the
// calendar, who may issue, the grants (a as first issued, cur at the final block, standing
// beside a when a is revoked) and which out-of-scope probes sit inside a's stale terms.
type casePlan struct {
	lifecycle, patchDim                 string
	n                                   int
	dept                                genDepartment
	vendor, currency, condition         string
	issuers                             []genActor
	issuersPhrase                       string
	claimant, issuerA                   genActor
	days                                []time.Time
	probeDay, probeAt, curUntil         time.Time
	change, replaceBlock, standingBlock int
	lastChange                          int
	a, cur, standing                    genGrant
	staleAmount, staleTime, staleCat    bool
}

// planCase draws the lifecycle, the department, vendor and issuers, the calendar (one day per
// block, 1-4 days apart; the probes act 2-4 days after the history; the final grant ends 2-12
// days after that) and the blocks of the lifecycle events: the change lands in a middle block
// so that a later block can restate stale terms.
func (g *caseGen) planCase() *casePlan {
	p := &casePlan{lifecycle: GenLifecycles[g.intn(len(GenLifecycles))]}
	p.n = 5 + g.intn(4)
	n := p.n
	g.cores = make([][]genTurn, n)
	g.floats = make([][]genTurn, n)
	p.dept = genDepartments[g.intn(len(genDepartments))]
	p.vendor = g.pick(genVendors)
	p.currency = g.pick(genCurrencies)
	p.condition = g.pick(genConditions)
	p.issuers = []genActor{genCFO}
	if g.intn(3) == 0 {
		p.issuers = append(p.issuers, genDirector)
	}
	p.issuersPhrase = "the chief financial officer"
	if len(p.issuers) == 2 {
		p.issuersPhrase = "the chief financial officer or the procurement director"
	}
	p.claimant = genClaimants[g.intn(len(genClaimants))]
	if len(p.issuers) == 1 && g.intn(3) == 0 {
		p.claimant = genDirector // a senior title without the authority: authority confusion
	}
	if p.lifecycle == "issue_patch" {
		p.patchDim = genDimensions[g.intn(len(genDimensions))]
	}

	p.days = make([]time.Time, n)
	p.days[0] = genDay(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC), g.intn(540))
	for b := 1; b < n; b++ {
		p.days[b] = genDay(p.days[b-1], 1+g.intn(4))
	}
	p.probeDay = genDay(p.days[n-1], 2+g.intn(3))
	p.probeAt = p.probeDay.Add(time.Duration(9+g.intn(8)) * time.Hour)
	p.curUntil = genDay(p.probeDay, 2+g.intn(11))

	switch p.lifecycle {
	case "issue_patch", "issue_revoke":
		p.change = 2 + g.intn(n-3)
	case "issue_revoke_replace":
		p.change = 2 + g.intn(n-4)
		p.replaceBlock = p.change + g.intn(2)
	}
	if p.lifecycle == "issue_revoke" {
		p.standingBlock = 1 + g.intn(p.change-1)
	}
	p.lastChange = max(p.change, p.replaceBlock)
	return p
}

// planGrants draws the grants: a keeps the first grant's terms as issued (what a stale memory
// holds); cur is the grant active at the final block; the stale flags say which out-of-scope
// probes sit inside a.
func (g *caseGen) planGrants(p *casePlan) {
	p.issuerA = genCFO
	if len(p.issuers) == 2 && g.intn(4) == 0 {
		p.issuerA = genDirector
	}
	nn := 10 + g.intn(80)
	a := genGrant{
		id: fmt.Sprintf("auth_%s_%02d", p.dept.short, nn), issuer: p.issuerA.id, vendor: p.vendor,
		max: int64(20+g.intn(381)) * 100, from: genDay(p.days[1], 1+g.intn(2)),
	}
	kA := 1 + g.intn(3)
	if p.lifecycle == "issue_revoke" || p.patchDim == "category" {
		kA = 2 + g.intn(2)
	}
	a.cats = g.subset(p.dept.categories, kA)
	cur := a
	switch p.lifecycle {
	case "issue_only":
		a.until = p.curUntil
		cur = a
	case "issue_patch":
		a.until = p.curUntil
		switch p.patchDim {
		case "amount":
			cur = a
			cur.max = genPct(a.max, 40+g.intn(41))
			p.staleAmount = true
		case "time":
			a.until = genDay(p.curUntil, 7+g.intn(24))
			cur = a
			cur.until = p.curUntil
			p.staleTime = true
		case "category":
			cur = a
			cur.cats = g.properSubset(a.cats)
			p.staleCat = true
		}
	case "issue_revoke":
		a.until = genDay(p.curUntil, 7+g.intn(24))
		issuerB := p.issuers[g.intn(len(p.issuers))]
		p.standing = genGrant{
			id: fmt.Sprintf("auth_%s_%02d", p.dept.short, nn+1), issuer: issuerB.id, vendor: p.vendor,
			cats: g.properSubset(a.cats), max: genPct(a.max, 30+g.intn(41)),
			from: genDay(p.days[p.standingBlock], 1), until: p.curUntil,
		}
		cur = p.standing
		p.staleAmount, p.staleTime, p.staleCat = true, true, true
	case "issue_revoke_replace":
		a.until = genDay(p.curUntil, 5+g.intn(21))
		cur = genGrant{
			id: fmt.Sprintf("auth_%s_%02d", p.dept.short, nn+2), issuer: p.issuerA.id, vendor: p.vendor,
			cats: a.cats, max: genPct(a.max, 40+g.intn(46)), from: genDay(p.days[p.replaceBlock], 1), until: p.curUntil,
		}
		if len(a.cats) >= 2 {
			cur.cats = g.properSubset(a.cats)
		}
		if g.intn(2) == 0 {
			cur.vendor = g.pick(genWithout(genVendors, []string{p.vendor}))
		} else {
			p.staleAmount, p.staleTime, p.staleCat = true, true, len(a.cats) >= 2
		}
	}
	p.a, p.cur = a, cur
}

// planProbes draws the probe pairs: the in-scope side is inside cur; the out-of-scope side
// steps just past cur on its dimension, inside a when the dimension is stale.
func (g *caseGen) planProbes(p *casePlan) []ProbePair {
	a, cur, curUntil := p.a, p.cur, p.curUntil
	amount0 := cur.max - 100*int64(1+g.intn(5))
	cat0 := g.pick(cur.cats)
	amountIn := cur.max - 100*int64(g.intn(4))
	amountOut := cur.max + []int64{1, 50, 100, 200, 500}[g.intn(5)]
	if p.staleAmount {
		amountOut = cur.max + 100*int64(1+g.intn(int((a.max-cur.max)/100)))
	}
	timeIn := curUntil.Add(-time.Duration(1+g.intn(20)) * time.Hour)
	timeOut := curUntil.Add(time.Duration([]int{0, 0, 1, 6, 24, 36}[g.intn(6)]) * time.Hour)
	if p.staleTime {
		gap := int(a.until.Sub(curUntil).Hours()) / 24
		timeOut = genDay(curUntil, g.intn(gap)).Add(time.Duration(1+g.intn(23)) * time.Hour)
	}
	catOut := g.pick(genWithout(p.dept.categories, genUnion(cur.cats, a.cats)))
	if p.staleCat {
		catOut = g.pick(genWithout(a.cats, cur.cats))
	}
	probe := func(dim, side string, category string, amount int64, at time.Time) TransactionProbe {
		scope := "in_scope"
		if side == "out" {
			scope = "out_of_scope"
		}
		return TransactionProbe{
			Name: g.id + "_" + dim + "_" + side, RequestScope: scope,
			Transaction: Transaction{
				TransactionID: g.id + "_txn_" + dim + "_" + side, Grantee: p.dept.actor.id, Action: "submit_order",
				Vendor: cur.vendor, Category: category, Amount: amount, Currency: p.currency, ActionTime: engine.FormatZ(at),
			},
		}
	}
	probeAt := p.probeAt
	return []ProbePair{
		{PairID: g.id + "_amount", Dimension: "amount", InScope: probe("amount", "in", cat0, amountIn, probeAt), OutOfScope: probe("amount", "out", cat0, amountOut, probeAt)},
		{PairID: g.id + "_time", Dimension: "time", InScope: probe("time", "in", cat0, amount0, timeIn), OutOfScope: probe("time", "out", cat0, amount0, timeOut)},
		{PairID: g.id + "_category", Dimension: "category", InScope: probe("category", "in", cat0, amount0, probeAt), OutOfScope: probe("category", "out", catOut, amount0, probeAt)},
	}
}
