package tui

import "github.com/ealscope/ealscope/tui/storymodel"

// The story's rows and texts, which the exports share (tui/storymodel), under the names the
// screens use.

type (
	ChainKey   = storymodel.ChainKey
	Turn       = storymodel.Turn
	FieldRow   = storymodel.FieldRow
	ProbeRow   = storymodel.ProbeRow
	Trial      = storymodel.Trial
	StepKind   = storymodel.StepKind
	Story      = storymodel.Story
	StoryStep  = storymodel.StoryStep
	StoryTurn  = storymodel.StoryTurn
	DiffRow    = storymodel.DiffRow
	DiffSeg    = storymodel.DiffSeg
	StoryArm   = storymodel.StoryArm
	StoryCheck = storymodel.StoryCheck
)

// The steps of a story, in order.
const (
	StepTurn, StepMemory, StepFalseAuthority = storymodel.StepTurn, storymodel.StepMemory, storymodel.StepFalseAuthority
	StepAction, StepExact, StepAttribution   = storymodel.StepAction, storymodel.StepExact, storymodel.StepAttribution
)

const notScoredText = storymodel.NotScoredText

func diffRowText(r DiffRow) string                 { return storymodel.DiffRowText(r) }
func probeFormsLine(p *ProbeRow, block int) string { return storymodel.ProbeFormsLine(p, block) }
func armFields(a *StoryArm) [][2]string            { return storymodel.ArmFields(a) }
func requestText(fields [][2]string) string        { return storymodel.RequestText(fields) }
func fieldLabel(f string) string                   { return storymodel.FieldLabel(f) }
func plural(n int, what string) string             { return storymodel.Plural(n, what) }
