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

// financeDomainID is the registry id EAL-Bench's finance domain is registered under.
const financeDomainID = "finance"

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
		return nil, fmt.Errorf("%s:1: not a corpus: expected a JSON object (a procurement JSONL line or a corpus document)", name)
	}
	first := trimmed
	if i := bytes.IndexByte(trimmed, '\n'); i >= 0 {
		first = bytes.TrimSpace(trimmed[:i])
	}
	var line map[string]json.RawMessage
	if json.Unmarshal(first, &line) == nil {
		if has(line, "case_id", "blocks", "probe_pairs") {
			return Get("procurement")
		}
		if i := bytes.IndexByte(trimmed, '\n'); i >= 0 && !has(line, "cases") {
			// A complete object on line 1 and more after it: JSONL of an unknown shape.
			return nil, fmt.Errorf("%s:1: a JSONL line with keys [%s] is not a procurement case", name, keyList(line))
		}
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a corpus: neither procurement JSONL nor one JSON document (%v)", name, err)
	}
	if has(doc, "case_id", "blocks", "probe_pairs") {
		return Get("procurement")
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
	if raw, ok := doc["schema_version"]; ok {
		var version string
		_ = json.Unmarshal(raw, &version)
		if d, err := Get(financeDomainID); err == nil {
			return d, nil
		}
		return nil, fmt.Errorf("%s: a finance corpus (schema_version %q), but the finance domain is not registered in this build (known: %s)", name, version, strings.Join(IDs(), ", "))
	}
	return nil, fmt.Errorf("%s: a corpus document with keys [%s] names no domain (no domain_id or schema_version)", name, keyList(doc))
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
