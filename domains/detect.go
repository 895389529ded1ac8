package domains

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/engine"
)

// Detect tells the domain of a corpus file from its content:
//   - procurement: JSONL, one case object per line (its first line has case_id, blocks and
//     probe_pairs);
//   - an EAL-Bench persistence.jsonable corpus {"domain_id", "corpus_version", "cases"}
//     (cybersecurity): the domain its domain_id names;
//   - finance's own corpus form {"schema_version", "corpus_version", "cases", ...}: the
//     "finance" domain when it is registered.
//
// Anything else is an error naming the file and what was found.
func Detect(name string, data []byte) (engine.Domain, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%s: empty file: cannot tell its domain", name)
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("%s:1: not a corpus: expected a JSON object (a JSONL case line or a corpus document)", name)
	}
	first := trimmed
	if i := bytes.IndexByte(trimmed, '\n'); i >= 0 {
		first = bytes.TrimSpace(trimmed[:i])
	}
	var line map[string]json.RawMessage
	if json.Unmarshal(first, &line) == nil {
		if d := bySignature(line); d != nil {
			return d, nil
		}
		if i := bytes.IndexByte(trimmed, '\n'); i >= 0 && !has(line, "cases") {
			// A complete object on line 1 and more after it: JSONL of an unknown shape.
			return nil, fmt.Errorf("%s:1: a JSONL line with keys [%s] is not a case of any domain (%s)", name, keyList(line), strings.Join(IDs(), ", "))
		}
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a corpus: neither JSONL cases nor one JSON document (%v)", name, err)
	}
	if d := bySignature(doc); d != nil {
		return d, nil // one case of a JSONL domain, or a document with its signature
	}
	if !has(doc, "cases") {
		return nil, fmt.Errorf("%s: a JSON document with keys [%s] is not a corpus (no \"cases\")", name, keyList(doc))
	}
	if raw, ok := doc["domain_id"]; ok {
		var id string
		if err := json.Unmarshal(raw, &id); err != nil {
			return nil, fmt.Errorf("%s: field domain_id: expected a string", name)
		}
		d, err := Get(id)
		if err != nil {
			return nil, fmt.Errorf("%s: field domain_id: %w", name, err)
		}
		return d, nil
	}
	return nil, fmt.Errorf("%s: a JSON document with keys [%s] is not the corpus form of any domain (%s)", name, keyList(doc), strings.Join(IDs(), ", "))
}

// bySignature is the domain whose corpus keys the object carries (the most specific
// signature first), or nil.
func bySignature(obj map[string]json.RawMessage) engine.Domain {
	var best engine.Domain
	bestLen := 0
	for _, id := range IDs() {
		d, _ := Get(id)
		sig, ok := d.(engine.CorpusSignature)
		if ok && len(sig.CorpusKeys()) > bestLen && has(obj, sig.CorpusKeys()...) {
			best, bestLen = d, len(sig.CorpusKeys())
		}
	}
	return best
}

func has(m map[string]json.RawMessage, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

func keyList(m map[string]json.RawMessage) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, strconv.Quote(k))
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}
