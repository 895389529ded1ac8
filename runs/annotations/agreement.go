package annotations

// Agreement between annotators on the labels that matter for scoring: each record's status
// and scope fields, and formation per probe. Units are (memory, authorization_id, field) and
// (memory, probe); a unit's value is the annotator's reading of it. Chance-corrected
// agreement is Cohen's kappa when exactly two annotators labelled the units, Krippendorff's
// alpha (nominal) when more did, both from engine/agreement.go.

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// absentValue is the value of a record field unit for an annotator whose state has no record
// with that id: whether a record exists at all is part of the reading.
const absentValue = "<no record>"

// Agreement methods.
const (
	MethodCohenKappa         = "cohen_kappa"
	MethodKrippendorffAlpha  = "krippendorff_alpha"
	formationGrants          = "grants"
	formationDenies          = "denies"
	unitSep                  = "\x1f"
	unitKindField            = "field"
	unitKindFormation        = "formation"
	formationUnitFieldPrefix = "probe:"
)

// LabelledMemory is one memory's usable labels: annotator -> records. Case is the memory's
// case (nil: no formation units).
type LabelledMemory struct {
	MemoryID string
	// Domain is the memory's domain: its schema names the compared fields.
	Domain engine.Domain
	Case   *engine.Case
	States map[string][]engine.Record
}

// AgreementFigures are the agreement statistics over one set of units.
type AgreementFigures struct {
	Annotators []string `json:"annotators"`
	// Units counts units labelled by at least two annotators; Agreed those where all agree.
	Units  int `json:"units"`
	Agreed int `json:"agreed"`
	// Observed is Agreed / Units (nil without units).
	Observed *float64 `json:"observed_agreement"`
	// Method is cohen_kappa (two annotators) or krippendorff_alpha (more); "" for fewer.
	Method string `json:"method"`
	// Coefficient is nil where the statistic is undefined (no variation, no shared units).
	Coefficient *float64 `json:"coefficient"`
	// Pairable counts shared units (kappa) or pairable values (alpha).
	Pairable int `json:"pairable"`
}

// UnitDisagreement is one unit the annotators read differently.
type UnitDisagreement struct {
	MemoryID        string            `json:"memory_id"`
	Kind            string            `json:"kind"`
	AuthorizationID string            `json:"authorization_id,omitempty"`
	Field           string            `json:"field,omitempty"`
	ProbeID         string            `json:"probe_id,omitempty"`
	Values          map[string]string `json:"values"`
}

// KindFigures are the agreement figures of a set of units by kind: its field units, its
// formation units, and both together.
type KindFigures struct {
	Fields    AgreementFigures `json:"fields"`
	Formation AgreementFigures `json:"formation"`
	All       AgreementFigures `json:"all"`
}

func kindFigures(fields, formation engine.Labels) KindFigures {
	return KindFigures{Fields: Figures(fields), Formation: Figures(formation), All: Figures(merge(engine.Labels{}, fields, formation))}
}

// MemoryAgreement is agreement on one memory.
type MemoryAgreement struct {
	MemoryID   string   `json:"memory_id"`
	Annotators []string `json:"annotators"`
	KindFigures
	Disagreements []UnitDisagreement `json:"disagreements"`
}

// PairAgreement is Cohen's kappa of one pair of annotators over every unit both labelled
// (for example a person against an imported extractor).
type PairAgreement struct {
	A        string   `json:"a"`
	B        string   `json:"b"`
	Shared   int      `json:"shared"`
	Agreed   int      `json:"agreed"`
	Observed *float64 `json:"observed_agreement"`
	Kappa    *float64 `json:"kappa"`
}

// AgreementReport is `ealscope annotate agreement`.
type AgreementReport struct {
	Annotators []string          `json:"annotators"`
	Memories   []MemoryAgreement `json:"memories"`
	KindFigures
	Pairs []PairAgreement `json:"pairs"`
}

type unitLabels struct {
	fields, formation engine.Labels
	// meta describes each unit key for the disagreement list.
	meta map[string]UnitDisagreement
}

// memoryUnits builds the units of one memory.
func memoryUnits(lm LabelledMemory) unitLabels {
	d := lm.Domain
	u := unitLabels{fields: engine.Labels{}, formation: engine.Labels{}, meta: map[string]UnitDisagreement{}}
	ids := map[string]bool{}
	for _, recs := range lm.States {
		for _, r := range recs {
			ids[r.AuthorizationID()] = true
		}
	}
	for ann, recs := range lm.States {
		byID := map[string]engine.Record{}
		for _, r := range recs {
			byID[r.AuthorizationID()] = r
		}
		for id := range ids {
			for _, f := range d.Schema().ComparedFields() {
				key := lm.MemoryID + unitSep + id + unitSep + f
				v := absentValue
				if r := byID[id]; r != nil {
					v = pyjson.MustCanonicalJSON(d.FieldValue(r, f))
				}
				if u.fields[key] == nil {
					u.fields[key] = map[string]string{}
					u.meta[key] = UnitDisagreement{MemoryID: lm.MemoryID, Kind: unitKindField, AuthorizationID: id, Field: f}
				}
				u.fields[key][ann] = v
			}
		}
		if lm.Case != nil {
			for _, p := range lm.Case.Probes {
				key := lm.MemoryID + unitSep + formationUnitFieldPrefix + p.ID
				v := formationDenies
				if engine.Authorizes(d, lm.Case, recs, p.Request).Authorized {
					v = formationGrants
				}
				if u.formation[key] == nil {
					u.formation[key] = map[string]string{}
					u.meta[key] = UnitDisagreement{MemoryID: lm.MemoryID, Kind: unitKindFormation, ProbeID: p.ID}
				}
				u.formation[key][ann] = v
			}
		}
	}
	return u
}

func merge(dst engine.Labels, srcs ...engine.Labels) engine.Labels {
	for _, src := range srcs {
		for k, v := range src {
			dst[k] = v
		}
	}
	return dst
}

func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	r := float64(a) / float64(b)
	return &r
}

// Figures computes agreement over a label set: observed agreement on units labelled at least
// twice, and kappa (two annotators) or alpha (more).
func Figures(labels engine.Labels) AgreementFigures {
	annotators := map[string]bool{}
	f := AgreementFigures{Annotators: []string{}}
	for _, byAnn := range labels {
		for a := range byAnn {
			annotators[a] = true
		}
		if len(byAnn) < 2 {
			continue
		}
		f.Units++
		if allSame(byAnn) {
			f.Agreed++
		}
	}
	f.Annotators = engine.SortedSet(annotators)
	f.Observed = ratio(f.Agreed, f.Units)
	switch n := len(f.Annotators); {
	case n == 2:
		f.Method = MethodCohenKappa
		f.Coefficient, f.Pairable = engine.CohensKappa(labels, f.Annotators[0], f.Annotators[1])
	case n > 2:
		f.Method = MethodKrippendorffAlpha
		f.Coefficient, f.Pairable = engine.KrippendorffAlpha(labels)
	}
	return f
}

func allSame(byAnn map[string]string) bool {
	first, set := "", false
	for _, v := range byAnn {
		if !set {
			first, set = v, true
		} else if v != first {
			return false
		}
	}
	return true
}

// ComputeAgreement is the agreement report over labelled memories (a pure function: the
// store loads the labels, this computes).
func ComputeAgreement(memories []LabelledMemory) AgreementReport {
	rep := AgreementReport{Annotators: []string{}, Memories: []MemoryAgreement{}, Pairs: []PairAgreement{}}
	allFields, allFormation := engine.Labels{}, engine.Labels{}
	sort.Slice(memories, func(i, j int) bool { return memories[i].MemoryID < memories[j].MemoryID })
	for _, lm := range memories {
		u := memoryUnits(lm)
		merge(allFields, u.fields)
		merge(allFormation, u.formation)
		ma := MemoryAgreement{MemoryID: lm.MemoryID, Annotators: engine.SortedSet(boolSet(lm.States)), KindFigures: kindFigures(u.fields, u.formation), Disagreements: []UnitDisagreement{}}
		for _, k := range slices.Sorted(maps.Keys(u.meta)) {
			values := u.fields[k]
			if values == nil {
				values = u.formation[k]
			}
			if len(values) >= 2 && !allSame(values) {
				dis := u.meta[k]
				dis.Values = values
				ma.Disagreements = append(ma.Disagreements, dis)
			}
		}
		rep.Memories = append(rep.Memories, ma)
	}
	rep.KindFigures = kindFigures(allFields, allFormation)
	all := merge(engine.Labels{}, allFields, allFormation)
	rep.Annotators = rep.All.Annotators
	for i, a := range rep.Annotators {
		for _, b := range rep.Annotators[i+1:] {
			p := PairAgreement{A: a, B: b}
			for _, byAnn := range all {
				va, okA := byAnn[a]
				vb, okB := byAnn[b]
				if okA && okB {
					p.Shared++
					if va == vb {
						p.Agreed++
					}
				}
			}
			p.Observed = ratio(p.Agreed, p.Shared)
			p.Kappa, _ = engine.CohensKappa(all, a, b)
			rep.Pairs = append(rep.Pairs, p)
		}
	}
	return rep
}

// UsableForAgreement: a label counts when its annotator is done with it (submitted or
// accepted), it holds a state, and it read the memory's current text.
func UsableForAgreement(a Annotation) bool {
	// An adjudication settles the annotators' disagreement; it is not one more annotator
	// (counting it would inflate agreement with whichever label it took).
	return (a.Status == AnnotationSubmitted || a.Status == AnnotationAccepted) && a.State != nil && !a.Stale &&
		a.Origin != OriginAdjudication
}

// unitLabel names a disagreement unit for people: "auth_a · scope.max_amount" or "probe p1".
func (u UnitDisagreement) Label() string {
	if u.Kind == unitKindFormation {
		return "formation · " + u.ProbeID
	}
	return strings.Join([]string{u.AuthorizationID, u.Field}, " · ")
}

func boolSet[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}
