package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// isoPattern accepts the extended ISO 8601 forms Python's datetime.fromisoformat reads:
// a date, optionally a one-character separator and a time with optional minutes, seconds
// and fraction, optionally an offset (Z, +HH, +HHMM, +HH:MM, +HH:MM:SS).
var isoPattern = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?:.(\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?)?(Z|[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?)?$`)

// ParseISOTime parses a timestamp the way EAL-Bench does (fromisoformat after replacing "Z"
// by "+00:00"). aware is false for a naive timestamp (no offset), which EAL-Bench treats as
// invalid in the oracle and as UTC in fidelity comparisons.
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
	year, month, day := num(m[1]), num(m[2]), num(m[3])
	hour, minute, sec := num(m[4]), num(m[5]), num(m[6])
	nanos := 0
	if m[7] != "" {
		frac := (m[7] + "000000000")[:9]
		nanos = num(frac)
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false, fmt.Errorf("invalid ISO timestamp %q", s)
	}
	loc := time.UTC
	if tz := m[8]; tz != "" {
		aware = true
		if tz != "Z" {
			sign := 1
			if tz[0] == '-' {
				sign = -1
			}
			digits := strings.ReplaceAll(tz[1:], ":", "")
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
			loc = time.FixedZone("", sign*(oh*3600+om*60+os))
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nanos, loc), aware, nil
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
