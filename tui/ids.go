package tui

import "strings"

// Ids of one case share long prefixes: every probe of a cybersecurity case starts with
// "probe_<case id>_", every finance block title with "block_<case id>_". Cut at the end, they all
// look alike ("probe_ealsc…"). Lists, panes, stories and exports therefore show the part of an
// id that differs: the id with its case's prefix dropped; a column too narrow even for that
// cuts in the middle (fitMiddle).

// caseLocalID drops everything up to and including the case id and the separator after it
// ("time_shift_inside" for "probe_<case>_time_shift_inside"); an id that does not contain the
// case id, or is nothing more, stays whole.
func caseLocalID(caseID, id string) string {
	if caseID == "" {
		return id
	}
	i := strings.Index(id, caseID)
	if i < 0 {
		return id
	}
	rest := strings.TrimLeft(id[i+len(caseID):], "_-.:/")
	if rest == "" {
		return id
	}
	return rest
}

// distinctIDs shows each id of a case's list by the part that differs: the case's prefix
// dropped when every id contains the case id, else the ids whole (a narrow column then cuts
// them in the middle).
func distinctIDs(caseID string, ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = caseLocalID(caseID, id)
		if out[i] == id {
			copy(out, ids)
			return out
		}
	}
	return out
}
