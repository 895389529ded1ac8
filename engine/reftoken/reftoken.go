// Package reftoken is the reference tokenizer EAL-Bench counts memory capacity with
// (cl100k_base from an embedded vocabulary, else regex_fallback_v1): pure computation, so
// the run pipeline, the event-sourced reducer and the domains' capacity checks share it.
package reftoken

import (
	"regexp"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Reference tokenizer names as EAL-Bench records them (memories.reference_tokenizer and the
// manifest's capacity.reference_tokenizer).
const (
	CL100K          = "cl100k_base"
	RegexFallbackV1 = "regex_fallback_v1"
)

// Counter counts reference tokens for the capacity budget.
type Counter interface {
	Name() string
	Count(text string) int
}

type cl100k struct{ codec tokenizer.Codec }

func (cl100k) Name() string { return CL100K }

func (c cl100k) Count(text string) int {
	n, err := c.codec.Count(text)
	if err != nil {
		// cl100k encodes every valid string; an error here means the vocabulary is broken,
		// which loadTokenizer has already ruled out.
		panic("cl100k_base: " + err.Error())
	}
	return n
}

// regexFallback is EAL-Bench's regex_fallback_v1: Python's `\w+|[^\w\s]` with Unicode
// classes. Python's \w is alphanumerics plus underscore (combining marks are not word
// characters) and \s is str.isspace(), which includes the \x1c-\x1f separators and \x85;
// Go's \w and \s are ASCII-only, so the classes are spelled out.
type regexFallback struct{}

var fallbackPattern = regexp.MustCompile(`[\p{L}\p{N}_]+|[^\p{L}\p{N}_\s\x0b\x1c-\x1f\x85\p{Z}]`)

func (regexFallback) Name() string { return RegexFallbackV1 }

func (regexFallback) Count(text string) int { return len(fallbackPattern.FindAllStringIndex(text, -1)) }

var (
	tokenizerOnce sync.Once
	tokenizerImpl Counter
)

// Reference is cl100k_base from the embedded vocabulary, or regex_fallback_v1 if
// that vocabulary cannot be loaded or fails its self-check ("hello world" is two tokens,
// [15339 1917]), exactly the choice EAL-Bench makes when tiktoken is unavailable. The
// counter's Name is recorded wherever a count is.
func Reference() Counter {
	tokenizerOnce.Do(func() { tokenizerImpl = loadTokenizer() })
	return tokenizerImpl
}

func loadTokenizer() (tc Counter) {
	defer func() {
		if recover() != nil {
			tc = regexFallback{}
		}
	}()
	codec, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		return regexFallback{}
	}
	ids, _, err := codec.Encode("hello world")
	if err != nil || len(ids) != 2 || ids[0] != 15339 || ids[1] != 1917 {
		return regexFallback{}
	}
	return cl100k{codec: codec}
}

// RegexFallback is regex_fallback_v1 on its own (for tests and comparisons).
func RegexFallback() Counter { return regexFallback{} }
