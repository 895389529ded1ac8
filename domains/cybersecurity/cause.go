package cybersecurity

import (
	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/cause"
)

// RequestFields implements cause.RequestReader: the submitted request's eight compared
// fields, or the operational near-match's for the alternative course.
func (Domain) RequestFields(p engine.Probe, kind string) map[string]any {
	r := request(p.Request)
	return envelope.CourseFields(r, r.NearMatch, kind, (*Request).Fields)
}

var _ cause.RequestReader = Domain{}
