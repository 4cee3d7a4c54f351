package units

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// A Unit is a unit of time: its symbol and its size.
type Unit struct {
	Symbol string
	Size   time.Duration
}

// The units a duration prints in, smallest first. Durations of 1000 s and
// more stay in seconds: simulated times are compared with the timeout and
// with each other, and "1500 s" reads more easily than "25 min" next to
// "300 s". A function, not package variables, so that no caller can
// change how every other one prints.
func all() [4]Unit {
	return [4]Unit{{"ns", time.Nanosecond}, {"µs", time.Microsecond}, {"ms", time.Millisecond}, {"s", time.Second}}
}

// Digits is the number of significant digits a duration prints with.
const Digits = 4

// Fit is the unit in which |d| is at least 1 and below 1000 once rounded to
// Digits significant digits (seconds for 1000 s and more, nanoseconds below
// 1 ns).
func Fit(d time.Duration) Unit {
	a := math.Abs(float64(d))
	us := all()
	for i := len(us) - 1; i > 0; i-- {
		if round(a/float64(us[i].Size)) >= 1 {
			return us[i]
		}
	}
	return us[0]
}

// For is the unit that fits the largest of ds in magnitude, so that a group
// of numbers printed together ("median 3.1 ms, Q1 2.4 ms, Q3 3.3 ms") shares
// one unit. For() is seconds.
func For(ds ...time.Duration) Unit {
	if len(ds) == 0 {
		return all()[3]
	}
	var m time.Duration
	for _, d := range ds {
		if d < 0 {
			d = -d
		}
		m = max(m, d)
	}
	return Fit(m)
}

// Format is d in u with Digits significant digits (at most 3 decimals, no
// trailing zeros), a space and u's symbol: "747.3 ms", "0.25 ms", "300 s".
func (u Unit) Format(d time.Duration) string {
	return number(float64(d)/float64(u.Size)) + " " + u.Symbol
}

// Duration is d in the unit that fits it: "747.3 ms", "2.1 µs", "12.4 s",
// "0 s" for zero.
func Duration(d time.Duration) string {
	if d == 0 {
		return "0 s"
	}
	return Fit(d).Format(d)
}

// Seconds is Duration for a number of seconds (as the results files store
// them); NaN and infinities print as Go prints them.
func Seconds(s float64) string {
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return strconv.FormatFloat(s, 'g', -1, 64) + " s"
	}
	return Duration(FromSeconds(s))
}

// FromSeconds is s seconds as a Duration, rounded to the nanosecond and
// clamped to the Duration range.
func FromSeconds(s float64) time.Duration {
	ns := math.Round(s * 1e9)
	switch {
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}

// round is a rounded to Digits significant digits.
func round(a float64) float64 {
	if a == 0 {
		return 0
	}
	p := math.Pow(10, float64(Digits-1)-math.Floor(math.Log10(a)))
	return math.Round(a*p) / p
}

// number is v with Digits significant digits, at most 3 decimals, trailing
// zeros dropped.
func number(v float64) string {
	a := math.Abs(v)
	dec := 0
	if a > 0 {
		dec = min(max(Digits-1-int(math.Floor(math.Log10(round(a)))), 0), 3)
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// Bytes is n bytes in the binary unit that fits it, with Digits
// significant digits: "512 B", "1.5 KiB", "3.2 GiB".
func Bytes(n uint64) string {
	const k = 1024
	syms := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	v, i := float64(n), 0
	for ; i < len(syms)-1 && round(v) >= k; i++ {
		v /= k
	}
	return number(v) + " " + syms[i]
}
