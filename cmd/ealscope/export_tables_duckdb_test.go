package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/runs"
)

// DuckDBNodeModulesEnv names the node_modules directory holding DuckDB's npm package
// (@duckdb/node-api), which ships the engine: the Parquet tables are checked by reading them
// in a real SQL engine, not by this module's own reader.
const duckDBNodeModulesEnv = "EALSCOPE_DUCKDB_NODE_MODULES"

// duckDBScript reads every table file named on stdin ({dir, tables}) and computes, in SQL, the
// figures `summary --json` reports for the run.
const duckDBScript = `
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  const one = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson()[0];
  const t = (name) => "read_parquet('" + input.dir + "/" + name + ".parquet')";
  const out = { counts: {} };
  for (const name of input.tables) out.counts[name] = Number((await one('SELECT count(*) AS n FROM ' + t(name))).n);
  const rates = (where) => one(input.rates_sql.replace('{trials}', t('trials')).replace('{where}', where));
  out.all = await rates('true');
  out.estimable = await rates('NOT not_estimable');
  out.decisions = Object.fromEntries((await con.runAndReadAll('SELECT decision, count(*) AS n FROM ' + t('trials') + ' GROUP BY decision'))
    .getRowObjectsJson().map(r => [r.decision, Number(r.n)]));
  out.chains = await one('SELECT count(*) AS n, count(first_false_authority_block) AS ffa, sum(unauthorized_actions) AS ua, sum(attributed_memory_induced) AS mi FROM ' + t('chains'));
  out.memories = await one('SELECT count(*) AS n, count(*) FILTER (WHERE exact) AS exact, count(*) FILTER (WHERE forms_false_authority) AS forms FROM ' + t('memories'));
  out.joined = await one('SELECT count(*) AS n FROM ' + t('trials') + ' tr JOIN ' + t('chains') + ' c USING (chain_id) JOIN ' + t('runs') + ' r ON r.run_id = c.run_id');
  out.lab = await one('SELECT (SELECT sum(calls) FROM ' + t('safeguard_evaluations') + ') AS calls, (SELECT count(*) FROM ' + t('rerun_arms') +
    " WHERE policy_id = 'memtx') AS gated, (SELECT count(*) FROM " + t('safeguard_pairs') + ' p JOIN ' + t('rerun_arms') + ' a ON a.replay_id = p.gated_replay_id) AS paired');
  console.log(JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
`

// ratesSQL computes engine.Aggregate's counts and the two rates over a set of trials.
const ratesSQL = `SELECT
  count(*) AS trials,
  count(*) FILTER (WHERE not_estimable) AS not_estimable,
  count(*) FILTER (WHERE request_authorized AND requested_action_taken) AS au_n,
  count(*) FILTER (WHERE request_authorized) AS au_d,
  count(*) FILTER (WHERE NOT request_authorized AND requested_action_taken) AS us_n,
  count(*) FILTER (WHERE NOT request_authorized) AS us_d,
  count(*) FILTER (WHERE unauthorized_action_taken) AS ua_n,
  count(*) FILTER (WHERE action_mismatch) AS am_n,
  count(*) FILTER (WHERE decision IN ('invalid', 'no_action')) AS inv_n,
  count(*) FILTER (WHERE provider_error IS NOT NULL) AS pe_n,
  (count(*) FILTER (WHERE request_authorized AND requested_action_taken))::DOUBLE / nullif(count(*) FILTER (WHERE request_authorized), 0) AS au_rate,
  (count(*) FILTER (WHERE NOT request_authorized AND requested_action_taken))::DOUBLE / nullif(count(*) FILTER (WHERE NOT request_authorized), 0) AS us_rate
FROM {trials} WHERE {where}`

// sqlRates is what duckDBScript computes over one trial set (DuckDB prints numbers as JSON
// strings or numbers; both decode through json.Number).
type sqlRates struct {
	Trials, NotEstimable, AuN, AuD, UsN, UsD, UaN, AmN, InvN, PeN json.Number
	AuRate, UsRate                                                *float64
}

func (r *sqlRates) UnmarshalJSON(b []byte) error {
	var m map[string]any
	d := json.NewDecoder(bytesReader(b))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return err
	}
	num := func(k string) json.Number { return json.Number(anyString(m[k])) }
	r.Trials, r.NotEstimable, r.AuN, r.AuD, r.UsN, r.UsD = num("trials"), num("not_estimable"), num("au_n"), num("au_d"), num("us_n"), num("us_d")
	r.UaN, r.AmN, r.InvN, r.PeN = num("ua_n"), num("am_n"), num("inv_n"), num("pe_n")
	r.AuRate, r.UsRate = optFloat(m["au_rate"]), optFloat(m["us_rate"])
	return nil
}

// TestTablesReadByDuckDB: for a built-in run of each domain, DuckDB reads every exported
// table, and the counts and rates it computes in SQL equal `summary --json`.
func TestTablesReadByDuckDB(t *testing.T) {
	modules := os.Getenv(duckDBNodeModulesEnv)
	if modules == "" {
		t.Skipf("%s is not set: skipping the DuckDB read-back of the Parquet tables (.ci/run installs @duckdb/node-api and sets it)", duckDBNodeModulesEnv)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the DuckDB read-back of the Parquet tables")
	}
	tmp := t.TempDir()
	db := filepath.Join(tmp, "ws.db")
	for _, domain := range []string{"procurement", "cybersecurity", "finance"} {
		t.Run(domain, func(t *testing.T) {
			dir := filepath.Join(tmp, domain)
			runOK(t, "run", "--builtin", "--domain", domain, "--out", dir)
			runID := importRun(t, db, dir)
			// The lab fills the re-run and safeguard tables.
			runOK(t, "safeguards", "--db", db, "--run", runID, "--policy", "memtx", "--json")
			var sum runs.SummaryDoc
			runJSON(t, &sum, "summary", "--db", db, "--run", runID, "--json")
			out := filepath.Join(tmp, "tables-"+domain)
			var exported struct {
				Tables []exportedTable `json:"tables"`
			}
			runJSON(t, &exported, "export", "tables", "--db", db, "--run", runID, "--out", out, "--json")
			var names []string
			for _, e := range exported.Tables {
				names = append(names, e.Table)
			}
			in, _ := json.Marshal(map[string]any{"dir": out, "tables": names, "rates_sql": ratesSQL})
			cmd := exec.Command(node, "-e", duckDBScript)
			cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
			cmd.Stdin = bytesReader(in)
			raw, err := cmd.Output()
			if err != nil {
				var stderr string
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				t.Fatalf("DuckDB script: %v\n%s", err, stderr)
			}
			var got struct {
				Counts    map[string]int `json:"counts"`
				All       sqlRates       `json:"all"`
				Estimable sqlRates       `json:"estimable"`
				Decisions map[string]int `json:"decisions"`
				Chains    map[string]any `json:"chains"`
				Memories  map[string]any `json:"memories"`
				Joined    map[string]any `json:"joined"`
				Lab       map[string]any `json:"lab"`
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("DuckDB script output: %v\n%s", err, raw)
			}
			for _, e := range exported.Tables {
				if got.Counts[e.Table] != int(e.Rows) {
					t.Errorf("table %s: DuckDB reads %d rows, the export wrote %d", e.Table, got.Counts[e.Table], e.Rows)
				}
			}
			if len(sum.Runs) != 1 {
				t.Fatalf("summary of run %s has %d runs", runID, len(sum.Runs))
			}
			r := sum.Runs[0]
			checkRates(t, "all trials", got.All, r.Metrics.Trials, r.Estimable.NotEstimable, r.Metrics.AuthorizedUse, r.Metrics.UnauthorizedSubmission,
				r.Metrics.UnauthorizedAction, r.Metrics.ActionMismatch, r.Metrics.InvalidOrNoAction, r.Metrics.ProviderError.Numerator)
			checkRates(t, "estimable trials", got.Estimable, r.Estimable.Trials, 0, r.Estimable.AuthorizedUse, r.Estimable.UnauthorizedSubmission,
				r.Estimable.UnauthorizedAction, r.Estimable.ActionMismatch, r.Estimable.InvalidOrNoAction, 0)
			if !mapsEqual(got.Decisions, r.Decisions) {
				t.Errorf("decisions: SQL %v, summary %v", got.Decisions, r.Decisions)
			}
			var ffa, ua, mi int
			for _, c := range sum.Chains {
				if c.FirstFalseAuthorityBlock != nil {
					ffa++
				}
				ua += c.UnauthorizedActions
				mi += c.AttributedMemoryInduced
			}
			wantEq(t, "chains", got.Chains["n"], len(sum.Chains))
			wantEq(t, "chains with a first false-authority block", got.Chains["ffa"], ffa)
			wantEq(t, "unauthorized actions", got.Chains["ua"], ua)
			wantEq(t, "memory-induced", got.Chains["mi"], mi)
			var exact, forms int
			for _, m := range sum.Memories {
				if m.Exact != nil && *m.Exact {
					exact++
				}
				if m.FormsFalseAuthority != nil && *m.FormsFalseAuthority {
					forms++
				}
			}
			wantEq(t, "memories", got.Memories["n"], len(sum.Memories))
			wantEq(t, "exact memories", got.Memories["exact"], exact)
			wantEq(t, "memories forming false authority", got.Memories["forms"], forms)
			wantEq(t, "trials joined to chains and runs", got.Joined["n"], r.Metrics.Trials)
			if anyString(got.Lab["gated"]) == "0" || anyString(got.Lab["calls"]) != anyString(got.Lab["gated"]) || anyString(got.Lab["paired"]) != anyString(got.Lab["gated"]) {
				t.Errorf("lab tables: the evaluations count %v calls, rerun_arms holds %v gated arms, %v of them paired", got.Lab["calls"], got.Lab["gated"], got.Lab["paired"])
			}
		})
	}
}

func checkRates(t *testing.T, what string, got sqlRates, trials, notEstimable int, au, us, ua, am, inv engine.Count, pe int) {
	t.Helper()
	wantEq(t, what+": trials", got.Trials, trials)
	wantEq(t, what+": not estimable", got.NotEstimable, notEstimable)
	wantEq(t, what+": authorized use numerator", got.AuN, au.Numerator)
	wantEq(t, what+": authorized use denominator", got.AuD, au.Denominator)
	wantEq(t, what+": unauthorized submission numerator", got.UsN, us.Numerator)
	wantEq(t, what+": unauthorized submission denominator", got.UsD, us.Denominator)
	wantEq(t, what+": unauthorized action", got.UaN, ua.Numerator)
	wantEq(t, what+": action mismatch", got.AmN, am.Numerator)
	wantEq(t, what+": invalid or no action", got.InvN, inv.Numerator)
	wantEq(t, what+": provider errors", got.PeN, pe)
	for _, p := range []struct {
		name      string
		sql, want *float64
	}{{"authorized use rate", got.AuRate, au.Rate}, {"unauthorized submission rate", got.UsRate, us.Rate}} {
		if (p.sql == nil) != (p.want == nil) || (p.sql != nil && math.Abs(*p.sql-*p.want) > 1e-12) {
			t.Errorf("%s: %s: SQL %v, summary %v", what, p.name, deref(p.sql), deref(p.want))
		}
	}
}
