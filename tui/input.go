package tui

import (
	tea "charm.land/bubbletea/v2"
)

// lineInput is a one-line editor for `/` filters and the `:` command line. It is a plain
// struct, not a nested model, and has no cursor blink: blink ticks would make every frame
// time-dependent, which goldens and teatest flows cannot pin.
type lineInput struct {
	prompt string
	value  string
	active bool
}

type inputResult int

const (
	inputEditing inputResult = iota
	inputSubmitted
	inputCancelled
)

func (in *lineInput) start(prompt, value string) {
	in.prompt, in.value, in.active = prompt, value, true
}

// update consumes a key while the input is active.
func (in *lineInput) update(msg tea.KeyPressMsg) inputResult {
	switch msg.String() {
	case "enter":
		in.active = false
		return inputSubmitted
	case "esc", "ctrl+c":
		in.active = false
		return inputCancelled
	case "backspace", "ctrl+h":
		if r := []rune(in.value); len(r) > 0 {
			in.value = string(r[:len(r)-1])
		}
	case "ctrl+u":
		in.value = ""
	case "space":
		in.value += " "
	default:
		if msg.Text != "" {
			in.value += sanitizeLine(msg.Text) // pasted text is untrusted too
		}
	}
	return inputEditing
}

func (in lineInput) view() string { return in.prompt + in.value + "█" }
