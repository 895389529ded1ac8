package cybersecurity

import (
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/cause"
)

// RequestFields implements cause.RequestReader: the submitted request's eight compared
// fields, or the operational near-match's for the alternative course.
func (Domain) RequestFields(p engine.Probe, kind string) map[string]any {
	r := request(p.Request)
	if kind == "alternative" {
		if r.NearMatch == nil {
			return nil
		}
		return r.NearMatch.Fields()
	}
	return r.Fields()
}

var _ cause.RequestReader = Domain{}
