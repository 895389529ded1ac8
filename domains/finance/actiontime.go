package finance

import "github.com/ealscope/ealscope/engine"

var _ engine.ActionClock = Domain{}

// ActionTime implements engine.ActionClock: the request's RequestedAt (FORMAT.md 3).
func (Domain) ActionTime(request any) (string, bool) {
	switch r := request.(type) {
	case TradeRequest:
		return r.RequestedAt, true
	case *TradeRequest:
		if r != nil {
			return r.RequestedAt, true
		}
	}
	return "", false
}
