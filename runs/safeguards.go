package runs

// The safeguard lab's storage (migration 0120): what a lab evaluation reads from the
// workspace (a chain's memory at every block) and what it writes (gated memories, record
// decisions, paired arms, per-policy verdicts), one transaction per batch. Plain values only:
// replay/ computes, replay/workbench converts, this file stores and reads back.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// SafeguardFormation is formation of one memory at a block (docs/FORMATS.md 7.1), stored as JSON.
type SafeguardFormation struct {
	Estimable      bool     `json:"estimable"`
	Formed         bool     `json:"formed"`
	FormedProbeIDs []string `json:"formed_probe_ids"`
}

// SafeguardMemory is a chain's current memory after one block.
type SafeguardMemory struct {
	Block    int
	MemoryID string
	// Payload is a string for free text, a tree for typed memory.
	Payload any
	// Formation is the stored verdict at this block (covers annotated free text).
	Formation SafeguardFormation
}

// SafeguardSource is what the lab reads of one chain: the chain, its domain and case, the
// probes (at the final block, with the user message of one of the chain's executor contexts,
// which carries EAL-Bench's operational context) and the memory at every block that has one.
// Mirrors and formation of RerunSource are not filled (the lab makes its own arms).
type SafeguardSource struct {
	RerunSource
	Versions []SafeguardMemory
}

// SafeguardSource loads a chain for the lab. It reads only the chain's own rows (chains and
// chain_blocks primary keys, memories unique key, trials_by_chain, model_contexts_by_trial),
// so loading every chain of a large run stays linear in its size.
func (s *Store) SafeguardSource(ctx context.Context, key ChainKey) (SafeguardSource, error) {
	out, archs, err := s.chainMemories(ctx, key)
	if err != nil {
		return out, err
	}
	// The lab shows each memory as its own architecture says (the last one's: a chain holds
	// one kind).
	if n := len(archs); n > 0 {
		out.Architecture = archs[n-1]
	}
	d, c := out.Domain, out.Case
	index := map[string]int{}
	for _, p := range c.Probes {
		v, err := engine.Oracle(d, c, c.LastBlock(), p.Request)
		if err != nil {
			return out, err
		}
		index[p.ID] = len(out.Probes)
		out.Probes = append(out.Probes, RerunProbeSource{Probe: p, RequestAuthorized: v.Authorized, Mirrors: []MirrorTrial{}})
	}
	if n := len(out.Versions); n > 0 && out.Versions[n-1].Block == c.LastBlock() {
		last := out.Versions[n-1]
		out.MemoryID, out.Payload = last.MemoryID, last.Payload
	}
	// The operational context depends on the case and probe only (RerunSource): one executor
	// context of this chain per probe carries it.
	err = s.setContextUserMessages(ctx, index, out.Probes, `SELECT t.probe_id, mc.line, `+rawSelect("mc")+` FROM trials t INDEXED BY trials_by_chain
		JOIN model_contexts mc INDEXED BY model_contexts_by_trial ON mc.run_pk = t.run_pk AND mc.trial_id = t.trial_id
		WHERE t.chain_pk = ? AND mc.stage = 'executor' ORDER BY t.probe_id, t.line`, key)
	return out, err
}

// SafeguardChains lists the chains of a run the lab evaluates: every writer condition's, and
// the event-sourced condition's (docs/FORMATS.md 8.2) when the run has it, in case order.
func (s *Store) SafeguardChains(ctx context.Context, runID string) ([]ChainRow, error) {
	all, err := s.Chains(ctx, ChainFilter{RunID: runID, Sort: SortByCase})
	if err != nil {
		return nil, err
	}
	out := []ChainRow{}
	for _, c := range all {
		if writerConditions[c.ConditionID] || c.ConditionID == EventSourcedCondition {
			out = append(out, c)
		}
	}
	return out, nil
}

// EventSourcedCondition is EAL-Bench's bounded event-sourcing writer condition.
const EventSourcedCondition = "bounded_event_sourced_typed"

// SafeguardBatch is one lab evaluation of a chain to store.
type SafeguardBatch struct {
	Chain          ChainKey
	BatchID        string
	ExecutorTarget string
	Executor       any
	Seed           int64
	// TrialBlocks is "final" or "every".
	TrialBlocks string
	// Baseline are the un-gated arms (variant written), shared by the policies.
	Baseline       []ReplayInput
	FinalFormation SafeguardFormation
	// FinalArms are the un-gated outcomes at the final block by probe.
	FinalArms map[string]engine.Outcome
	Policies  []SafeguardPolicyBatch
	CreatedAt time.Time
}

// SafeguardPolicyBatch is one policy's part of a batch.
type SafeguardPolicyBatch struct {
	PolicyID, PolicyVersion, Description string
	NotApplicable                        string
	FirstFalseAuthorityBefore            *int
	FirstFalseAuthorityAfter             *int
	FormationRemoved                     bool
	// Counts, FinalCounts, FinalWritten, FinalGated and Removed are stored as JSON as given
	// (replay's values), read back raw.
	Counts, FinalCounts, FinalWritten, FinalGated, Removed any
	Outcome                                                engine.SafeguardOutcome
	Blocks                                                 []SafeguardBlockInput
	// Arms are the gated arms (variant gated).
	Arms  []ReplayInput
	Pairs []SafeguardPairInput
}

// SafeguardBlockInput is one memory version under a policy.
type SafeguardBlockInput struct {
	BlockIndex       int
	MemoryID         string
	WrittenHash      string
	WrittenFormation SafeguardFormation
	NotApplicable    string
	GatedPayload     any
	GatedHash        string
	GatedFormation   SafeguardFormation
	Records          []engine.RecordDecision
}

// SafeguardPairInput links the two arms of a (block, probe) under a policy.
type SafeguardPairInput struct {
	BlockIndex        int
	ProbeID           string
	RequestAuthorized bool
	Effect            string
	WrittenReplayID   string
	GatedReplayID     string
	Gate              *engine.GateDecision
}

// SaveSafeguards stores a batch in one transaction: for each of its policies, the rows of an
// earlier evaluation of that policy on the chain (its gated replays, blocks, pairs and
// verdict) are replaced. The un-gated arms are written re-runs (policy_id ”) with attribution
// rows recomputed as SaveReplay does; those no pair refers to any more are deleted.
func (s *Store) SaveSafeguards(ctx context.Context, b SafeguardBatch) error {
	if b.BatchID == "" {
		return errors.New("safeguards: batch_id is required")
	}
	created := b.CreatedAt.UTC().Format(time.RFC3339Nano)
	_, err := s.inTx(ctx, func(w *txWriter) error {
		for _, p := range b.Policies {
			for _, q := range []string{
				`DELETE FROM replays WHERE chain_pk = ? AND policy_id = ?`,
				`DELETE FROM safeguard_pairs WHERE chain_pk = ? AND policy_id = ?`,
				`DELETE FROM safeguard_blocks WHERE chain_pk = ? AND policy_id = ?`,
				`DELETE FROM safeguard_evaluations WHERE chain_pk = ? AND policy_id = ?`,
			} {
				if _, err := w.exec("", q, b.Chain, p.PolicyID); err != nil {
					return err
				}
			}
		}
		for _, a := range b.Baseline {
			a.Chain = b.Chain
			pk, err := s.insertReplay(w, a, &labArm{})
			if err != nil {
				return err
			}
			if err := s.attributeArm(w, b.Chain, a.BlockIndex, a.ProbeID, a.Executor.TargetID, a.WrittenMemoryID, pk, a.Memory.Variant, a.Repetition); err != nil {
				return err
			}
		}
		for _, p := range b.Policies {
			for _, a := range p.Arms {
				a.Chain = b.Chain
				if _, err := s.insertReplay(w, a, &labArm{p.PolicyID, p.PolicyVersion}); err != nil {
					return err
				}
			}
			for _, bl := range p.Blocks {
				var payloadJSON, payloadText any
				if bl.NotApplicable == "" {
					j, err := pyjson.CanonicalJSON(bl.GatedPayload)
					if err != nil {
						return fmt.Errorf("safeguards: policy %s block %d: gated payload: %w", p.PolicyID, bl.BlockIndex, err)
					}
					payloadJSON, payloadText = j, j
					if t, ok := bl.GatedPayload.(string); ok {
						payloadText = t
					}
				}
				records := bl.Records
				if records == nil {
					records = []engine.RecordDecision{}
				}
				if _, err := w.exec("safeguard_blocks", `INSERT INTO safeguard_blocks (chain_pk, policy_id, block_index, memory_id, written_content_hash, written_formation_json,
					not_applicable, gated_payload_json, gated_payload_text, gated_content_hash, gated_formation_json, records_json) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
					b.Chain, p.PolicyID, bl.BlockIndex, bl.MemoryID, bl.WrittenHash, jsonText(bl.WrittenFormation), optText(bl.NotApplicable), payloadJSON, payloadText,
					optText(bl.GatedHash), jsonText(bl.GatedFormation), jsonText(records)); err != nil {
					return err
				}
			}
			for _, pr := range p.Pairs {
				var gate any
				if pr.Gate != nil {
					gate = jsonText(pr.Gate)
				}
				if _, err := w.exec("safeguard_pairs", `INSERT INTO safeguard_pairs (chain_pk, policy_id, block_index, probe_id, request_authorized, effect, written_replay_id, gated_replay_id, gate_json)
					VALUES (?,?,?,?,?,?,?,?,?)`, b.Chain, p.PolicyID, pr.BlockIndex, pr.ProbeID, b2i(pr.RequestAuthorized), pr.Effect, pr.WrittenReplayID, optText(pr.GatedReplayID), gate); err != nil {
					return err
				}
			}
			if _, err := w.exec("safeguard_evaluations", `INSERT INTO safeguard_evaluations (chain_pk, policy_id, policy_version, description, batch_id, executor_target, executor_json, seed,
				trial_blocks, not_applicable, first_false_authority_before, first_false_authority_after, formation_removed, counts_json, final_counts_json, final_written_json,
				final_gated_json, removed_json, outcome_json, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
				b.Chain, p.PolicyID, p.PolicyVersion, p.Description, b.BatchID, b.ExecutorTarget, jsonText(b.Executor), b.Seed, b.TrialBlocks, optText(p.NotApplicable),
				nullInt(p.FirstFalseAuthorityBefore), nullInt(p.FirstFalseAuthorityAfter), b2i(p.FormationRemoved), jsonText(p.Counts), jsonText(p.FinalCounts),
				jsonText(p.FinalWritten), jsonText(p.FinalGated), jsonText(p.Removed), jsonText(p.Outcome), created); err != nil {
				return err
			}
		}
		// The lab's un-gated arms no pair refers to any more (every policy that used them was
		// re-run) go, with their attribution rows: the lab owns them.
		for _, q := range []string{
			`DELETE FROM replay_attribution WHERE chain_pk = ? AND written_replay_id IN (SELECT replay_id FROM replays WHERE chain_pk = ? AND policy_id = '' AND replay_id NOT IN (SELECT written_replay_id FROM safeguard_pairs WHERE chain_pk = ?))`,
			`DELETE FROM replays WHERE chain_pk = ? AND policy_id = '' AND replay_id NOT IN (SELECT written_replay_id FROM safeguard_pairs WHERE chain_pk = ?)`,
		} {
			args := []any{b.Chain, b.Chain, b.Chain}
			if _, err := w.exec("", q, args[:strings.Count(q, "?")]...); err != nil {
				return err
			}
		}
		arms := b.FinalArms
		if arms == nil {
			arms = map[string]engine.Outcome{}
		}
		_, err := w.exec("safeguard_chains", `INSERT OR REPLACE INTO safeguard_chains (chain_pk, batch_id, executor_target, seed, final_formation_json, final_arms_json, created_at)
			VALUES (?,?,?,?,?,?,?)`, b.Chain, b.BatchID, b.ExecutorTarget, b.Seed, jsonText(b.FinalFormation), jsonText(arms), created)
		return err
	})
	return err
}
