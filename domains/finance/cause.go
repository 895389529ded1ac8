package finance

import (
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/cause"
)

// RequestFields implements cause.RequestReader: the submitted order's visible fields, or the
// operational near-match's for the alternative course.
func (Domain) RequestFields(p engine.Probe, kind string) map[string]any {
	r := request(p.Request)
	if kind == "alternative" {
		if r.NearMatch == nil {
			return nil
		}
		return r.NearMatch.Visible()
	}
	return r.Visible()
}

var _ cause.RequestReader = Domain{}
