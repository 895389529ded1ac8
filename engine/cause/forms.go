package cause

import (
	"regexp"
	"strconv"
	"strings"

	"unicode"

	"github.com/ealscope/ealscope/engine"
)

// A writer reads a value in whatever form a message writes it: 11,500 or 11500 or "USD
// 11.5k"; 2026-09-30, "September 30" or "30 Sep"; an item of a list written "a | b" or
// "a, b"; restart_service or "restart service". A turn states a value when one of those
// forms occurs in it. The text of a turn is read once into a mention index (numbers, dates,
// normalised words) and values are looked up in it.

// mentions is what one turn's text holds, normalised.
type mentions struct {
	// text is the lower-cased text with underscores and hyphens read as spaces, padded with
	// spaces so word lookups can demand a boundary on both sides.
	text string
	// raw is the lower-cased text as written (identifiers keep their hyphens).
	raw     string
	numbers map[int64]bool
	dates   map[string]bool // "2006-01-02", and "01-02" for dates written without a year
}

var (
	numberRE = regexp.MustCompile(`(?i)(\d{1,3}(?:[,\x{00a0} ]\d{3})+|\d+(?:\.\d+)?)\s*(k|thousand|m|mn|million|bn|billion)?\b`)
	isoDate  = regexp.MustCompile(`\b(\d{4})-(\d{2})-(\d{2})`)
	monthDay = regexp.MustCompile(`(?i)\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b`)
	dayMonth = regexp.MustCompile(`(?i)\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?(?:,?\s+(\d{4}))?\b`)
)

var months = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}

// readMentions indexes one text.
func readMentions(text string) mentions {
	m := mentions{raw: strings.ToLower(text), numbers: map[int64]bool{}, dates: map[string]bool{}}
	m.text = " " + normWords(text) + " "
	for _, g := range numberRE.FindAllStringSubmatch(text, -1) {
		if n, ok := readNumber(g[1], g[2]); ok {
			m.numbers[n] = true
		}
	}
	for _, g := range isoDate.FindAllStringSubmatch(text, -1) {
		m.dates[g[1]+"-"+g[2]+"-"+g[3]] = true
		m.dates[g[2]+"-"+g[3]] = true
	}
	addDate := func(mon string, day, year string) {
		mo := months[strings.ToLower(mon)]
		d, err := strconv.Atoi(day)
		if mo == 0 || err != nil || d < 1 || d > 31 {
			return
		}
		md := pad2(mo) + "-" + pad2(d)
		m.dates[md] = true
		if year != "" {
			m.dates[year+"-"+md] = true
		}
	}
	for _, g := range monthDay.FindAllStringSubmatch(text, -1) {
		addDate(g[1], g[2], g[3])
	}
	for _, g := range dayMonth.FindAllStringSubmatch(text, -1) {
		addDate(g[2], g[1], g[3])
	}
	return m
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// readNumber reads "11,500", "11500", "11.5" with a "k"/"million" suffix as an integer;
// fractions that do not come out whole are dropped (they match no integer value).
func readNumber(digits, suffix string) (int64, bool) {
	digits = strings.NewReplacer(",", "", " ", "", "\u00a0", "").Replace(digits)
	f, err := strconv.ParseFloat(digits, 64)
	if err != nil {
		return 0, false
	}
	switch strings.ToLower(suffix) {
	case "k", "thousand":
		f *= 1e3
	case "m", "mn", "million":
		f *= 1e6
	case "bn", "billion":
		f *= 1e9
	}
	n := int64(f + 0.5)
	if f < 0 || float64(n)-f > 1e-6 || f-float64(n) > 1e-6 {
		return 0, false
	}
	return n, true
}

// normWords lower-cases text and reads every run of non-alphanumerics (underscores, hyphens,
// punctuation) as one space.
func normWords(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	return strings.TrimSpace(b.String())
}

// Value is one value a turn may state: what the memory took, or what the request asks for
// beyond the ledger. Kind tells how it is written (a number, an instant, a word or id).
type Value struct {
	Field string
	Text  string
	Kind  engine.FieldKind
	// Scale is a limit's minor units per major unit (prices in micros), so 100000000 micros
	// is also found written as 100.
	Scale int64
}

// states reports whether the text states v in any form, and the form it found.
func (m mentions) states(v Value) (string, bool) {
	s := strings.TrimSpace(v.Text)
	if s == "" {
		return "", false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n >= 10 && m.numbers[n] {
			return s, true
		}
		if v.Scale > 1 && n%v.Scale == 0 && n/v.Scale >= 10 && m.numbers[n/v.Scale] {
			return strconv.FormatInt(n/v.Scale, 10), true
		}
		return "", false
	}
	if t, aware, err := engine.ParseISOTime(s); err == nil && aware {
		t = t.UTC()
		if m.dates[t.Format("2006-01-02")] {
			return t.Format("2006-01-02"), true
		}
		if m.dates[t.Format("01-02")] {
			return t.Format("January 2"), true
		}
		return "", false
	}
	if len(s) < 3 {
		return "", false
	}
	low := strings.ToLower(s)
	if strings.ContainsAny(low, "-_./:") && len(low) >= 5 && containsToken(m.raw, low) {
		return s, true // an identifier, as written
	}
	w := normWords(s)
	if w != "" && strings.Contains(m.text, " "+w+" ") {
		return s, true
	}
	return "", false
}

// containsToken finds needle in hay with no letter or digit right before or after it.
func containsToken(hay, needle string) bool {
	for i := 0; ; {
		j := strings.Index(hay[i:], needle)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(needle)
		if (start == 0 || !isWordByte(hay[start-1])) && (end == len(hay) || !isWordByte(hay[end])) {
			return true
		}
		i = start + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}

// leafValues flattens a request or record tree into values, one per leaf (list items each),
// with the dotted path as the field.
func leafValues(prefix string, v any, out *[]Value) {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			leafValues(engine.JoinPath(prefix, k), sub, out)
		}
	case []any:
		for _, sub := range x {
			leafValues(prefix, sub, out)
		}
	case nil:
	default:
		*out = append(*out, Value{Field: prefix, Text: leafText(x)})
	}
}

// leafText is a leaf written as text (numbers as their digits).
func leafText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case bool:
		return strconv.FormatBool(x)
	default:
		if s, ok := v.(interface{ String() string }); ok {
			return s.String()
		}
	}
	return ""
}

// sameInstant says whether two texts are the same aware instant.
func sameInstant(a, b string) bool {
	ta, oka, erra := engine.ParseISOTime(a)
	tb, okb, errb := engine.ParseISOTime(b)
	return erra == nil && errb == nil && oka && okb && ta.Equal(tb)
}
