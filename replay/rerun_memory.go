package replay

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/engine/pyjson"
	"github.com/ealscope/ealscope/runs/replayrow"
)

// RerunMemory is the memory one arm shows the executor (the shared row type of runs/replayrow).
type RerunMemory = replayrow.Memory

func newRerunMemory(variant, arch string, payload any, source string) (RerunMemory, error) {
	hash, err := pyjson.ContentHash(payload)
	if err != nil {
		return RerunMemory{}, err
	}
	return RerunMemory{Variant: variant, Architecture: arch, Payload: payload, ContentHash: hash, Source: source}, nil
}

// WrittenMemory wraps a chain's stored memory (payload as stored: a string for free text, a
// tree for typed memory).
func WrittenMemory(arch string, payload any, memoryID string) (RerunMemory, error) {
	if arch != engine.ArchTyped && arch != engine.ArchFreeText {
		return RerunMemory{}, fmt.Errorf("memory %s: unknown architecture %q (want %s or %s)", memoryID, arch, engine.ArchTyped, engine.ArchFreeText)
	}
	if arch == engine.ArchTyped {
		tree, err := pyjson.Retree(payload)
		if err != nil {
			return RerunMemory{}, fmt.Errorf("memory %s: %w", memoryID, err)
		}
		payload = tree
	}
	return newRerunMemory(engine.VariantWritten, arch, payload, memoryID)
}

// ExactMemory is the oracle-exact memory at a block in the chain's architecture: the ledger
// records replayed through that block, as the faithful typed payload or in the domain's
// canonical free-text layout (EAL-Bench's faithful_typed / faithful_text memories).
func ExactMemory(d engine.Domain, c *engine.Case, block int, arch string) (RerunMemory, error) {
	if block < 0 || block > c.LastBlock() {
		return RerunMemory{}, fmt.Errorf("case %s: block %d is outside 0..%d", c.ID, block, c.LastBlock())
	}
	records, err := d.Replay(c, block)
	if err != nil {
		return RerunMemory{}, fmt.Errorf("case %s: ledger at block %d: %w", c.ID, block, err)
	}
	source := fmt.Sprintf("oracle@block %d", block)
	switch arch {
	case engine.ArchTyped:
		tree, err := pyjson.Retree(d.TypedPayload(records))
		if err != nil {
			return RerunMemory{}, err
		}
		return newRerunMemory(engine.VariantExact, arch, tree, source)
	case engine.ArchFreeText:
		return newRerunMemory(engine.VariantExact, arch, d.FaithfulText(records), source)
	}
	return RerunMemory{}, fmt.Errorf("unknown architecture %q (want %s or %s)", arch, engine.ArchTyped, engine.ArchFreeText)
}

// ParseMemoryText reads a hand-made payload (from $EDITOR or a file) in the chain's
// architecture. Typed payloads must be one JSON document that the domain's schema accepts;
// they are validated here, before anything runs, and errors name the file, the line and
// column of a syntax error, or the offending field. Free text is taken as is (the built-in
// executor reads only the canonical layout and labels other text invalid, never guessing).
func ParseMemoryText(d engine.MemoryCodec, arch, name, variant string, text []byte) (RerunMemory, error) {
	switch arch {
	case engine.ArchFreeText:
		if len(bytes.TrimSpace(text)) == 0 {
			return RerunMemory{}, fmt.Errorf("%s: the memory is empty", name)
		}
		return newRerunMemory(variant, arch, string(text), name)
	case engine.ArchTyped:
		tree, err := pyjson.DecodeTree(text)
		if err != nil {
			return RerunMemory{}, pyjson.FileError(name, text, err)
		}
		if _, err := d.ParseTyped(tree); err != nil {
			var fe *engine.FieldError
			if errors.As(err, &fe) && fe.Path != "" {
				return RerunMemory{}, fmt.Errorf("%s:%d: %w", name, fieldLine(text, fe.Path), err)
			}
			return RerunMemory{}, fmt.Errorf("%s: %w", name, err)
		}
		return newRerunMemory(variant, arch, tree, name)
	}
	return RerunMemory{}, fmt.Errorf("%s: unknown architecture %q", name, arch)
}

// fieldLine is a best-effort line for a field path: the line of the path's last key found
// in the text, walking up the path when a key is absent (a missing required key points at
// its parent), else 1. The path itself is always in the message; the line only helps an
// editor jump there.
func fieldLine(text []byte, path string) int {
	for path != "" {
		key := path
		cut := strings.LastIndexAny(path, ".[")
		if cut >= 0 {
			key = path[cut+1:]
			path = path[:cut]
		} else {
			path = ""
		}
		key = strings.TrimSuffix(key, "]")
		if key == "" || strings.Trim(key, "0123456789") == "" {
			continue
		}
		if i := bytes.Index(text, []byte(`"`+key+`"`)); i >= 0 {
			return 1 + bytes.Count(text[:i], []byte("\n"))
		}
	}
	return 1
}

// memoryEvidence is what the executor is shown for a memory.
func memoryEvidence(m RerunMemory, operationalContext string) engine.Evidence {
	return engine.Evidence{Kind: engine.MemoryEvidence, Payload: m.Payload, OperationalContext: operationalContext}
}

// MemoryForms decides whether a memory forms false authority for a probe at a block: the
// ledger through that block denies the request and the remembered records authorize it.
// ok is false when the memory cannot be read (free text outside the canonical layout, an
// invalid typed payload): formation is then not estimable.
func MemoryForms(d engine.Domain, c *engine.Case, block int, m RerunMemory, p engine.Probe) (formed, ok bool) {
	records, err := readEvidence(d, memoryEvidence(m, ""))
	if err != nil {
		return false, false
	}
	ledger, err := d.Replay(c, block)
	if err != nil {
		return false, false
	}
	if engine.Authorizes(d, c, ledger, p.Request).Authorized {
		return false, true
	}
	return engine.Authorizes(d, c, records, p.Request).Authorized, true
}

// OperationalContextFrom recovers the operational context (EAL-Bench's challenge block,
// "Request context ... Available courses ...") from a user message EAL-Bench sent for this
// probe: the current-request section minus the domain's rendered request. The challenge
// depends on the case and probe only, so re-running with the same context sends the same
// request whatever the memory. "" when the message has none or does not end with the
// request this domain renders.
func OperationalContextFrom(d engine.ExecutorSurface, p engine.Probe, user string) string {
	const openTag, closeTag = "<CURRENT_REQUEST>\n", "\n</CURRENT_REQUEST>"
	i := strings.Index(user, openTag)
	if i < 0 {
		return ""
	}
	rest := user[i+len(openTag):]
	j := strings.Index(rest, closeTag)
	if j < 0 {
		return ""
	}
	section := rest[:j]
	request := d.RenderRequest(p)
	if !strings.HasSuffix(section, "\n\n"+request) {
		return ""
	}
	return strings.TrimSuffix(section, "\n\n"+request)
}
