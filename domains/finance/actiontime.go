package finance

import (
	"github.com/ealscope/ealscope/domains/internal/adapt"
	"github.com/ealscope/ealscope/engine"
)

var _ engine.ActionClock = Domain{}

// ActionTime implements engine.ActionClock: the request's RequestedAt (FORMAT.md 3).
func (Domain) ActionTime(request any) (string, bool) {
	r, ok := adapt.Value[TradeRequest](request)
	return r.RequestedAt, ok
}
