package finance

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ealscope/ealscope/domains/envelope"
	"github.com/ealscope/ealscope/domains/internal/freetext"
	"github.com/ealscope/ealscope/engine/pyjson"
)

// The canonical free-text layout of finance memory (docs/FORMATS.md 4.3, EAL-Bench's
// finance _render_memory): a "# Current portfolio mandates" header, then one "## <id>" section
// per mandate with fifteen fixed lines. Lists are joined by ", ".
var textLayout = freetext.Layout{
	Header: "# Current portfolio mandates",
	Empty:  "# Current portfolio mandates\n\nNo active portfolio-order mandate is recorded.",
}

const (
	noPriorMandate = "no prior mandate"
)

type textLine struct {
	label  string
	render func(m *envelope.Record) string
	read   func(m *envelope.Record, v string) error
}

func joinList(l []string) string { return strings.Join(l, ", ") }

func splitList(v string) []string { return strings.Split(v, ", ") }

func parseInt(label, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q is not an integer", label, v)
	}
	return n, nil
}

func intText(s envelope.Scope, f string) string {
	n, _ := s.Int(f)
	return strconv.FormatInt(n, 10)
}

func strLine(label string, get func(m *envelope.Record) **string) textLine {
	return textLine{label, func(m *envelope.Record) string { return deref(*get(m)) }, func(m *envelope.Record, v string) error {
		*get(m) = envelope.Str(v)
		return nil
	}}
}

func scopeStrLine(label, field string) textLine {
	return textLine{label, func(m *envelope.Record) string { return scopeStr(m.Scope, field) }, func(m *envelope.Record, v string) error {
		m.Scope[field] = v
		return nil
	}}
}

func scopeListLine(label, field string) textLine {
	return textLine{label, func(m *envelope.Record) string { return joinList(scopeList(m.Scope, field)) }, func(m *envelope.Record, v string) error {
		m.Scope[field] = splitList(v)
		return nil
	}}
}

// textLines is the layout after the "## <id>" heading, in order.
var textLines = []textLine{
	strLine("Issuer", func(m *envelope.Record) **string { return &m.Issuer }),
	strLine("Trader", func(m *envelope.Record) **string { return &m.Grantee }),
	{"Status", func(m *envelope.Record) string { return m.State }, func(m *envelope.Record, v string) error { m.State = v; return nil }},
	scopeStrLine("Account", fieldAccount),
	scopeListLine("Strategies", fieldStrategies),
	scopeListLine("Instruments", fieldInstruments),
	scopeListLine("Sides", fieldSides),
	scopeListLine("Order types", fieldOrderTypes),
	{"Maximum quantity", func(m *envelope.Record) string { return intText(m.Scope, fieldMaxQuantity) }, func(m *envelope.Record, v string) error {
		n, err := parseInt("maximum quantity", v)
		m.Scope[fieldMaxQuantity] = n
		return err
	}},
	{"Limit-price range in micros", func(m *envelope.Record) string {
		return intText(m.Scope, fieldMinPrice) + " through " + intText(m.Scope, fieldMaxPrice)
	}, func(m *envelope.Record, v string) error {
		lo, hi, ok := strings.Cut(v, " through ")
		if !ok {
			return fmt.Errorf("limit-price range %q is not \"<min> through <max>\"", v)
		}
		n, err := parseInt("minimum limit price", lo)
		if err != nil {
			return err
		}
		m.Scope[fieldMinPrice] = n
		n, err = parseInt("maximum limit price", hi)
		m.Scope[fieldMaxPrice] = n
		return err
	}},
	scopeStrLine("Settlement currency", fieldCurrency),
	{"Half-open validity window", func(m *envelope.Record) string {
		return "[" + deref(m.ValidFrom) + ", " + deref(m.ValidUntil) + ")"
	}, func(m *envelope.Record, v string) error {
		inner, ok := strings.CutPrefix(v, "[")
		if ok {
			inner, ok = strings.CutSuffix(inner, ")")
		}
		from, until, cut := strings.Cut(inner, ", ")
		if !ok || !cut {
			return fmt.Errorf("validity window %q is not \"[<from>, <until>)\"", v)
		}
		m.ValidFrom, m.ValidUntil = envelope.Str(from), envelope.Str(until)
		return nil
	}},
	{"Supersedes", func(m *envelope.Record) string {
		if m.Supersedes == nil || *m.Supersedes == "" {
			return noPriorMandate
		}
		return *m.Supersedes
	}, func(m *envelope.Record, v string) error {
		if v != noPriorMandate {
			m.Supersedes = envelope.Str(v)
		}
		return nil
	}},
	{"Sources", func(m *envelope.Record) string { return joinList(m.SourceTurnIDs) }, func(m *envelope.Record, v string) error {
		m.SourceTurnIDs = splitList(v)
		return nil
	}},
}

// FaithfulTextOf renders mandates in the canonical free-text layout (no trailing newline).
func FaithfulTextOf(records []*envelope.Record) string {
	return freetext.Write(textLayout, records, (*envelope.Record).AuthorizationID, func(r *envelope.Record, line func(label, value string)) {
		for _, l := range textLines {
			line(l.label, l.render(r))
		}
	})
}

// ReadFreeTextLayout reads the canonical layout back, for the built-in executor. Every
// section must have all fifteen lines in order; any other text is an error naming its line,
// so prose is never guessed at. The result must also be a valid typed state.
func ReadFreeTextLayout(text string) ([]*envelope.Record, error) {
	lines, err := textLayout.Lines(text)
	if lines == nil || err != nil {
		return nil, err
	}
	var out []*envelope.Record
	var cur *envelope.Record
	next := 0
	closeSection := func(line int) error {
		if cur != nil && next != len(textLines) {
			return fmt.Errorf("line %d: mandate %s lacks its %q line", line, cur.ID, textLines[next].label)
		}
		return nil
	}
	heading := func(n int, id string) error {
		if err := closeSection(n); err != nil {
			return err
		}
		if strings.TrimSpace(id) == "" {
			return fmt.Errorf("line %d: mandate heading without an id", n)
		}
		// The layout leaves out effect and action, which every finance mandate fixes.
		cur, next = &envelope.Record{ID: id, Scope: envelope.Scope{}, Effect: envelope.Str(MandateEffect), Action: envelope.Str(MandateAction)}, 0
		out = append(out, cur)
		return nil
	}
	field := func(n int, line string) error {
		if cur == nil {
			return fmt.Errorf("line %d: field before any \"## <mandate>\" heading", n)
		}
		if next >= len(textLines) {
			return fmt.Errorf("line %d: %q follows the last field of mandate %s", n, line, cur.ID)
		}
		want := textLines[next]
		value, ok := strings.CutPrefix(line, "- "+want.label+": ")
		if !ok {
			return fmt.Errorf("line %d: expected the %q line of mandate %s, got %q", n, want.label, cur.ID, line)
		}
		if err := want.read(cur, value); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		next++
		return nil
	}
	if err := textLayout.Scan(lines, heading, field); err != nil {
		return nil, err
	}
	if err := closeSection(len(lines)); err != nil {
		return nil, err
	}
	tree, err := pyjson.Retree(TypedPayloadOf(out))
	if err != nil {
		return nil, err
	}
	return ParseTypedPayload(tree)
}
