// Package units formats quantities for people: a duration prints in the
// unit that fits its scale ("747.3 ms", "2.1 µs", "12.4 s"), with four
// significant digits, so that stdout, warnings, summary.md and the report
// say the same thing the same way.
//
// # Usage
//
//	units.Duration(747310337 * time.Nanosecond) // "747.3 ms"
//	units.Seconds(0.0021)                        // "2.1 ms"
//	u := units.For(q1, median, q3)               // one unit for a group
//	u.Format(q1)                                 // "2.4 ms"
//
// # Determinism
//
// Formatting is a pure function of its arguments.
package units
