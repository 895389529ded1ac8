package tui

import "github.com/ealscope/ealscope/tui/storymodel"

// The story texts the exports print too (tui/storymodel), under the names the screens use.

const notScoredText = storymodel.NotScoredText

func diffRowText(r DiffRow) string                 { return storymodel.DiffRowText(r) }
func probeFormsLine(p *ProbeRow, block int) string { return storymodel.ProbeFormsLine(p, block) }
func armFields(a *StoryArm) [][2]string            { return storymodel.ArmFields(a) }
func requestText(fields [][2]string) string        { return storymodel.RequestText(fields) }
func fieldLabel(f string) string                   { return storymodel.FieldLabel(f) }
func plural(n int, what string) string             { return storymodel.Plural(n, what) }
