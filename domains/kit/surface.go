package kit

// Presentation is a domain's EAL-Bench presentation profile (docs/FORMATS.md): its id, its
// prompt policy, a description, its overlay file with that file's content hash, and its
// validity gates.
type Presentation struct {
	ID, PromptPolicyID, Description string
	OverlayFile, OverlayHash        string
	ValidityGates                   []string
}

// Tree is PresentationProfile.to_dict(): the run manifest's presentation object, whose content
// hash is the domain's presentation hash.
func (p Presentation) Tree() map[string]any {
	gates := make([]any, len(p.ValidityGates))
	for i, g := range p.ValidityGates {
		gates[i] = g
	}
	return map[string]any{
		"description":      p.Description,
		"overlay_files":    []any{p.OverlayFile},
		"overlay_hashes":   map[string]any{p.OverlayFile: p.OverlayHash},
		"presentation_id":  p.ID,
		"prompt_policy_id": p.PromptPolicyID,
		"validity_gates":   gates,
	}
}
