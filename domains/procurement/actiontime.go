package procurement

import "github.com/ealscope/ealscope/engine"

var _ engine.ActionClock = Domain{}

// ActionTime implements engine.ActionClock: the request's ActionTime (FORMAT.md 3).
func (Domain) ActionTime(request any) (string, bool) {
	switch r := request.(type) {
	case Transaction:
		return r.ActionTime, true
	case *Transaction:
		if r != nil {
			return r.ActionTime, true
		}
	}
	return "", false
}
