// Package reftoken is the reference tokenizer EAL-Bench counts memory capacity with
// (cl100k_base from an embedded vocabulary, else regex_fallback_v1): pure computation, so
// the run pipeline, the event-sourced reducer and the domains' capacity checks share it.
package reftoken

import (
	"regexp"
	"sync"
	"unicode/utf8"

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

// maxCountChunk bounds the text one BPE call sees. Byte-pair encoding of one long piece
// costs far more than linear time and memory (a 20 MiB word took 69 s and 790 MiB), so a
// long text is counted chunk by chunk, cut where cl100k's pre-tokenizer starts a new piece
// anyway (before a space that follows a non-space and precedes a letter), which leaves the
// count exact. Only a single piece longer than the chunk (no such cut in 64 KiB: a hostile
// input, never prose) is cut, every 128 bytes, where the count is then approximate.
const maxCountChunk = 64 << 10

func (c cl100k) Count(text string) int {
	n, start, lastCut := 0, 0, 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' && i+1 < len(text) && isASCIILetter(text[i+1]) && !isSpaceByte(text[i-1]) {
			lastCut = i
		}
		if i-start < maxCountChunk {
			continue
		}
		cut := lastCut
		if cut <= start {
			// No piece starts in the chunk: one piece longer than any prose word, whose
			// BPE cost grows with its length, so it is counted in short slices.
			cut = start + maxPieceBytes
			for cut > start+1 && !utf8.RuneStart(text[cut]) {
				cut--
			}
		}
		n += c.count(text[start:cut])
		start = cut
	}
	return n + c.count(text[start:])
}

// maxPieceBytes is the slice an over-long piece is counted in (cl100k's longest token is
// far shorter, so ordinary text never meets it).
const maxPieceBytes = 128

func isASCIILetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

func isSpaceByte(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

func (c cl100k) count(text string) int {
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

// Count walks the matches one at a time: collecting them all first costs a slice entry per
// token (100 MB for a 20 MiB input).
func (regexFallback) Count(text string) int {
	n := 0
	for len(text) > 0 {
		loc := fallbackPattern.FindStringIndex(text)
		if loc == nil {
			break
		}
		n++
		text = text[max(loc[1], 1):]
	}
	return n
}

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
