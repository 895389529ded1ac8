package adapt

import (
	"fmt"

	"github.com/ealscope/ealscope/engine"
)

// TypedRecords reads the items of a typed memory payload's authorizations list with parse, in
// payload order, and refuses an authorization_id that repeats (as EAL-Bench's model
// validator does). Errors name the item's path; namesFirst adds the first item with that id
// to the message (finance's wording).
func TypedRecords[R engine.Record](list []any, parse func(path string, item any) (R, error), namesFirst bool) ([]R, error) {
	out := make([]R, 0, len(list))
	first := map[string]int{}
	for i, item := range list {
		path := engine.JoinPath("authorizations", i)
		rec, err := parse(path, item)
		if err != nil {
			return nil, err
		}
		id := rec.AuthorizationID()
		if j, dup := first[id]; dup {
			repeats := id + " repeats"
			if namesFirst {
				repeats += fmt.Sprintf(" authorizations[%d]", j)
			}
			return nil, engine.Errf(path+".authorization_id", "authorization_id values must be unique (%s)", repeats)
		}
		first[id] = i
		out = append(out, rec)
	}
	return out, nil
}
