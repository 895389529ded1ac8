package replay

import (
	"math"
	"runtime"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/engine/reftoken"
	"github.com/ealscope/ealscope/runs/rundir"
)

// artifactSchemaVersions is the manifest's artifact_schema_versions: EAL-Bench's constant
// (typed_memory_payload is a string there) plus the artifacts ealscope writes.
func artifactSchemaVersions(d engine.MemoryCodec) map[string]any {
	out := map[string]any{"typed_memory_payload": d.TypedSchemaVersion()}
	for _, name := range []string{rundir.Trials, rundir.Memories, rundir.MemoryAttempts, rundir.MemoryStates, rundir.Evidence, rundir.ModelContexts, rundir.ExecutorPlan, rundir.Faults} {
		out[name] = rundir.SchemaVersions[name]
	}
	return out
}

// capacitySection is the manifest's capacity object (docs/FORMATS.md §4.5): per case the history
// and faithful memory sizes in reference tokens.
func capacitySection(d engine.Domain, cases []*engine.Case, tokens reftoken.Counter) (map[string]any, error) {
	largest := 0
	var rows []any
	for _, c := range cases {
		records, err := d.Replay(c, c.LastBlock())
		if err != nil {
			return nil, err
		}
		typed, err := pyjson.Retree(d.TypedPayload(records))
		if err != nil {
			return nil, err
		}
		text := d.FaithfulText(records)
		tt, ft := countTokens(tokens, typed), countTokens(tokens, text)
		largest = max(largest, tt, ft)
		rows = append(rows, map[string]any{
			"case_id": c.ID, "history_tokens": tokens.Count(renderHistory(d, c)),
			"faithful_text_tokens": ft, "faithful_typed_tokens": tt,
		})
	}
	primary := d.CapacityTokens()
	return map[string]any{
		"reference_tokenizer": tokens.Name(), "largest_faithful_tokens": largest, "primary_tokens": primary,
		// EAL-Bench's tight budget is 1.25x where the primary is 2x the largest faithful memory.
		"tight_tokens":          int(math.Ceil(float64(primary) * 1.25 / 2.0)),
		"minimum_history_ratio": 8, "cases": rows,
	}, nil
}

func routeSection(active bool, task string, prov rundir.ModelProvenance, runs int, extra map[string]any) map[string]any {
	out := map[string]any{
		"active": active, "task": task, "targets": []any{prov.TargetID}, "runs": runs,
		"target_routes": []any{map[string]any{
			"target_id": prov.TargetID, "provider": prov.Provider, "requested_model": prov.RequestedModel,
			"resolved_model": prov.ResolvedModel, "request_parameters": prov.EffectiveParameters,
		}},
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

func nowLocal() string {
	return time.Now().Format("2006-01-02T15:04:05.000000-07:00")
}

// faultSummary counts injected faults by family (every family listed, zeros included).
func faultSummary(families []string, counts map[string]int) map[string]any {
	byFamily := map[string]any{}
	total := 0
	for _, f := range families {
		byFamily[f] = counts[f]
		total += counts[f]
	}
	return map[string]any{"total": total, "by_family": byFamily}
}

func runtimeSection() map[string]any {
	return map[string]any{"go": runtime.Version(), "platform": runtime.GOOS + "-" + runtime.GOARCH}
}
