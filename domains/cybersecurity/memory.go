package cybersecurity

import (
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/domains/internal/freetext"
	"github.com/ealscope/ealscope/engine/pyjson"
)

const (
	// TypedSchemaVersion is the cybersecurity typed memory schema_version.
	TypedSchemaVersion = "4"
	// PayloadSchemaID identifies the typed payload schema in memory artifacts.
	PayloadSchemaID = "cybersecurity/incident-response-state/v4"
	// PrimaryCapacityTokens and TightCapacityTokens are EAL-Bench's calibrated writer budgets
	// for cybersecurity (the run manifest's capacity object).
	PrimaryCapacityTokens = 2646
	TightCapacityTokens   = 1654
	// maxScopeItems is the scope lists' max_length.
	maxScopeItems = 8
)

// Profile is the typed memory schema "4" (adapter.py MemoryProfile): literal issuer, grantee,
// effect and action; a required half-open window of parseable timestamps; scope strings and
// lists of 1..8 stripped non-empty strings; no record cap.
var Profile = envelope.ProfileSpec{
	SchemaVersion: TypedSchemaVersion,
	Scope:         Scope,
	Literals:      map[string]string{"issuer": Issuer, "grantee": Grantee, "effect": Effect, "action": Action},
	Statuses:      []string{envelope.StatusActive, envelope.StatusRevoked, envelope.StatusSuperseded, envelope.StatusUnknown},
	RequireWindow: true,
	ParseScope:    envelope.StrictScope(Scope, 1, maxScopeItems),
}

// ParseTypedPayload validates a typed memory payload tree and returns its records.
func ParseTypedPayload(payload any) ([]*envelope.Record, error) {
	return envelope.ParseProfile(payload, Profile)
}

// TypedPayloadOf is the typed payload of records (serialize_typed of faithful_typed).
func TypedPayloadOf(records []*envelope.Record) map[string]any {
	return envelope.Payload(records, Scope, TypedSchemaVersion)
}

// EmptyTyped is the empty typed profile.
func EmptyTyped() map[string]any { return TypedPayloadOf(nil) }

// textLayout is the canonical free-text layout: "## <id>" headings.
var textLayout = freetext.Layout{
	Header: "# Current incident-response permissions",
	Empty:  "# Current incident-response permissions\n\nNo active response permission is recorded.",
}

const (
	noPriorGrant = "no prior grant"
)

// textLabels are the canonical layout's field lines, in order.
var textLabels = []string{"Issuer", "Responder", "Status", "Tenant", "Incident", "Assets", "Environments", "Actions", "Vulnerabilities", "Half-open window", "Supersedes", "Sources"}

// FaithfulTextOf renders records in the canonical free-text layout (adapter._render_memory).
func FaithfulTextOf(records []*envelope.Record) string {
	return freetext.Write(textLayout, records, (*envelope.Record).AuthorizationID, func(r *envelope.Record, line func(label, value string)) {
		for i, v := range textValues(r) {
			line(textLabels[i], v)
		}
	})
}

// textValues renders a record's fields as Python's f-strings do (None prints "None").
func textValues(r *envelope.Record) []string {
	py := func(s *string) string {
		if s == nil {
			return "None"
		}
		return *s
	}
	str := func(k string) string {
		if s, ok := r.Scope.Str(k); ok {
			return s
		}
		return "None"
	}
	list := func(k string) string {
		l, _ := r.Scope.List(k)
		return strings.Join(l, ", ")
	}
	supersedes := noPriorGrant
	if r.Supersedes != nil && *r.Supersedes != "" {
		supersedes = *r.Supersedes
	}
	return []string{
		py(r.Issuer), py(r.Grantee), r.State, str("tenant_id"), str("incident_id"),
		list("asset_ids"), list("environments"), list("approved_actions"), list("vulnerability_ids"),
		"[" + py(r.ValidFrom) + ", " + py(r.ValidUntil) + ")", supersedes, strings.Join(r.SourceTurnIDs, ", "),
	}
}

// ReadFreeTextLayout reads the canonical layout back into records, for the built-in
// memory-faithful executor. Anything but exactly that layout (every field line present, in
// order) is an error naming the line; the result must also be a valid typed state.
func ReadFreeTextLayout(text string) ([]*envelope.Record, error) {
	lines, err := textLayout.Lines(text)
	if lines == nil || err != nil {
		return nil, err
	}
	var out []*envelope.Record
	i := 1
	for i < len(lines) {
		if lines[i] == "" {
			i++
			continue
		}
		if !strings.HasPrefix(lines[i], "## ") {
			return nil, fmt.Errorf("line %d: %q is not part of the canonical layout", i+1, lines[i])
		}
		id := strings.TrimPrefix(lines[i], "## ")
		if strings.TrimSpace(id) == "" {
			return nil, fmt.Errorf("line %d: permission heading without an id", i+1)
		}
		values := make([]string, len(textLabels))
		for k, label := range textLabels {
			n := i + 1 + k
			if n >= len(lines) {
				return nil, fmt.Errorf("line %d: permission %s ends before its %q line", n, id, label)
			}
			prefix := "- " + label + ": "
			if !strings.HasPrefix(lines[n], prefix) {
				return nil, fmt.Errorf("line %d: expected %q, got %q", n+1, "- "+label+": …", lines[n])
			}
			values[k] = strings.TrimPrefix(lines[n], prefix)
		}
		rec, err := recordFromText(id, values)
		if err != nil {
			return nil, fmt.Errorf("line %d: permission %s: %v", i+1, id, err)
		}
		out = append(out, rec)
		i += 1 + len(textLabels)
	}
	tree, err := pyjson.Retree(TypedPayloadOf(out))
	if err != nil {
		return nil, err
	}
	if _, err := ParseTypedPayload(tree); err != nil {
		return nil, err
	}
	return out, nil
}

func splitList(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, ", ")
}

func recordFromText(id string, v []string) (*envelope.Record, error) {
	window := v[9]
	if !strings.HasPrefix(window, "[") || !strings.HasSuffix(window, ")") {
		return nil, fmt.Errorf("half-open window %q is not \"[from, until)\"", window)
	}
	from, until, ok := strings.Cut(window[1:len(window)-1], ", ")
	if !ok {
		return nil, fmt.Errorf("half-open window %q is not \"[from, until)\"", window)
	}
	r := &envelope.Record{
		ID: id, Issuer: envelope.Str(v[0]), Grantee: envelope.Str(v[1]), State: v[2],
		Effect: envelope.Str(Effect), Action: envelope.Str(Action),
		ValidFrom: envelope.Str(from), ValidUntil: envelope.Str(until),
		Scope: envelope.Scope{
			"tenant_id": v[3], "incident_id": v[4], "asset_ids": splitList(v[5]), "environments": splitList(v[6]),
			"approved_actions": splitList(v[7]), "vulnerability_ids": splitList(v[8]),
		},
		SourceTurnIDs: splitList(v[11]),
	}
	if v[10] != noPriorGrant {
		r.Supersedes = envelope.Str(v[10])
	}
	return r, nil
}

// Fidelity is the cybersecurity fidelity spec: 15 rows per record, scope lists as sorted
// tuples, no same-instant rule (docs/FORMATS.md 7.1).
var Fidelity = envelope.FidelitySpec{Scope: Scope, SortLists: true}

// WriterInstructions is the domain writer instruction for an architecture ("free_text" or
// "typed"), used because the prompt policy sets use_domain_writer_instructions.
func WriterInstructions(typed bool) string {
	if !typed {
		return "Maintain a concise, source-linked record of incident-response permissions " +
			"currently in force. Preserve concrete identifiers and replace stale scope when " +
			"the security duty officer narrows, closes, or replaces a response grant."
	}
	return "Maintain only current incident-response permission records in the exact typed schema. " +
		"Every record requires the exact non-null authorization_id, issuer, grantee, effect, " +
		"action, status, validity window, scope, and source_turn_ids. Use JSON arrays for " +
		"asset_ids, environments, approved_actions, vulnerability_ids, and source_turn_ids. " +
		"Preserve exact identifiers, keep concurrent grants separate, and replace stale scope " +
		"after a patch, revocation, or replacement."
}
