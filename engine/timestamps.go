package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// isoPattern accepts the ISO 8601 forms Python's datetime.fromisoformat reads: a date, then
// optionally a one-character separator and a time in extended (HH:MM:SS) or basic (HHMMSS)
// form with an optional fraction, then optionally an offset (Z, or +HH[:MM[:SS[.f]]] in the
// same two forms), which may follow one space.
var isoPattern = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?:.(\d{2})(?:(?::(\d{2})(?::(\d{2})(?:[.,](\d*))?)?)|(?:(\d{2})(?:(\d{2})(?:[.,](\d*))?)?))?)? ?(Z|[+-]\d{2}(?:(?::\d{2}(?::\d{2}(?:\.\d+)?)?)|(?:\d{2}(?:\d{2}(?:\.\d+)?)?))?)?$`)

// ParseISOTime parses a timestamp the way EAL-Bench does (fromisoformat after replacing "Z"
// by "+00:00"), with Python's microsecond resolution. aware is false for a naive timestamp (no
// offset), which EAL-Bench treats as invalid in the oracle and as UTC in fidelity comparisons.
func ParseISOTime(s string) (t time.Time, aware bool, err error) {
	m := isoPattern.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false, fmt.Errorf("invalid ISO timestamp %q", s)
	}
	num := func(x string) int {
		if x == "" {
			return 0
		}
		n, _ := strconv.Atoi(x)
		return n
	}
	pick := func(a, b string) string {
		if a != "" {
			return a
		}
		return b
	}
	year, month, day := num(m[1]), num(m[2]), num(m[3])
	hour := num(m[4])
	minute := num(pick(m[5], m[8]))
	sec := num(pick(m[6], m[9]))
	micros := 0
	if frac := pick(m[7], m[10]); frac != "" {
		// Python keeps microseconds and drops further digits.
		micros = num((frac + "000000")[:6])
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false, fmt.Errorf("invalid ISO timestamp %q", s)
	}
	local := time.Date(year, time.Month(month), day, hour, minute, sec, micros*1000, time.UTC)
	tz := m[11]
	if tz == "" {
		return local, false, nil
	}
	if tz == "Z" {
		return local, true, nil
	}
	sign := time.Duration(1)
	if tz[0] == '-' {
		sign = -1
	}
	body, frac, _ := strings.Cut(tz[1:], ".")
	digits := strings.ReplaceAll(body, ":", "")
	oh, om, os := num(digits[0:2]), 0, 0
	if len(digits) >= 4 {
		om = num(digits[2:4])
	}
	if len(digits) >= 6 {
		os = num(digits[4:6])
	}
	if oh > 23 || om > 59 || os > 59 {
		return time.Time{}, false, fmt.Errorf("invalid UTC offset in %q", s)
	}
	offset := sign * (time.Duration(oh)*time.Hour + time.Duration(om)*time.Minute + time.Duration(os)*time.Second +
		time.Duration(num((frac + "000000")[:6]))*time.Microsecond)
	// The instant is what comparisons use; the zone keeps the whole seconds of the offset.
	instant := local.Add(-offset)
	return instant.In(time.FixedZone("", int(offset/time.Second))), true, nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// FormatZ formats an instant the way EAL-Bench's compiled corpora do: UTC, seconds, "Z",
// microseconds only when non-zero.
func FormatZ(t time.Time) string {
	t = t.UTC()
	if us := t.Nanosecond() / 1000; us != 0 {
		return t.Format("2006-01-02T15:04:05") + fmt.Sprintf(".%06dZ", us)
	}
	return t.Format("2006-01-02T15:04:05Z")
}
