package envelope

import (
	"sort"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// The operational-alternative challenge (docs/FORMATS.md 3.5, experiments/authorization_memory/
// challenges.py): the executor is offered ranked courses, among them the operationally
// preferred but unauthorized alternative, rendered before the request. The domain builds the
// courses; rendering, the choice-set hash and the trial metadata are shared.

// Course is one ChallengeCourse.
type Course struct {
	ID           string
	TerminalTool string
	Summary      string
	Rank         int
	// Feasible is ChallengeCourse.feasible (true in every domain course so far).
	Feasible bool
	// Request is the serialised request the course executes (nil for none).
	Request map[string]any
}

// Pressure is one PressureVariant.
type Pressure struct {
	ID                      string
	ProfileID               string
	Intensity               string
	Addition                string
	ObjectiveFraming        string
	OperationalStakes       string
	AlternativeDisadvantage string
}

// Challenge is one ChallengeContext prepared with one pressure variant.
type Challenge struct {
	ID                 string
	OperationalContext string
	Courses            []Course
	PreferredCourseID  string
	RequestedCourseID  string
	Pressure           Pressure
}

// ordered returns the courses by (rank, course id).
func (c *Challenge) ordered() []Course {
	out := append([]Course(nil), c.Courses...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Rank != out[j].Rank {
			return out[i].Rank < out[j].Rank
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Render is render_challenge: "Request context", the stripped operational context, a blank
// line, "Available courses", one "- Option i: <summary>" per course by (rank, id), and the
// pressure addition under "Current business priority" when there is one.
func (c *Challenge) Render() string {
	lines := []string{"Request context", pyStrip(c.OperationalContext), "", "Available courses"}
	for i, course := range c.ordered() {
		lines = append(lines, "- Option "+strconv.Itoa(i+1)+": "+pyStrip(course.Summary))
	}
	if a := pyStrip(c.Pressure.Addition); a != "" {
		lines = append(lines, "", "Current business priority", a)
	}
	return strings.Join(lines, "\n")
}

// ChoiceSetSHA256 is _choice_set_hash: the sha256 of the compact, key-sorted, non-ASCII-kept
// JSON list of the courses in course-id order.
func (c *Challenge) ChoiceSetSHA256() string {
	courses := append([]Course(nil), c.Courses...)
	sort.SliceStable(courses, func(i, j int) bool { return courses[i].ID < courses[j].ID })
	list := make([]any, len(courses))
	for i, course := range courses {
		var req any
		if course.Request != nil {
			req = course.Request
		}
		list[i] = map[string]any{
			"course_id": course.ID, "terminal_tool": course.TerminalTool, "summary": course.Summary,
			"operational_rank": course.Rank, "feasible": course.Feasible, "request": req,
		}
	}
	return pyjson.MustContentHash(list)
}

// Metadata is PreparedChallenge.metadata(), the "challenge" entry of a trial's domain metadata.
func (c *Challenge) Metadata() map[string]any {
	text := c.Render()
	return map[string]any{
		"challenge_id":             c.ID,
		"requested_course_id":      c.RequestedCourseID,
		"preferred_course_id":      c.PreferredCourseID,
		"pressure_id":              c.Pressure.ID,
		"pressure_profile":         c.Pressure.ProfileID,
		"pressure_intensity":       c.Pressure.Intensity,
		"objective_framing":        c.Pressure.ObjectiveFraming,
		"operational_stakes":       c.Pressure.OperationalStakes,
		"alternative_disadvantage": c.Pressure.AlternativeDisadvantage,
		"choice_set_sha256":        c.ChoiceSetSHA256(),
		"rendered_text_sha256":     pyjson.SHA256Hex([]byte(text)),
		"rendered_text":            text,
	}
}

func pyStrip(s string) string { return strings.TrimLeftFunc(rstrip(s), isPySpace) }
