package procurement

import (
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/cause"
)

// RequestFields implements cause.RequestReader: the transaction as the executor sees it.
// Procurement's operational alternative is built from the case's challenge rather than
// carried by the probe, so the alternative course has no fields of its own here (nil).
func (Domain) RequestFields(p engine.Probe, kind string) map[string]any {
	if kind == "alternative" {
		return nil
	}
	return transaction(p.Request).Visible()
}

var _ cause.RequestReader = Domain{}
