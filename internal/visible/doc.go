// Package visible makes the characters of a text that a terminal or a
// web page would not show as themselves visible as Go escapes, for the
// text that comes from a protocol's code (its states, notes, log lines
// and panics) or from a file: a line break that would split an event log
// line and forge the next one becomes `\n`, a right-to-left override that
// would reverse the text after it on screen becomes `\u202e`.
//
// String escapes control characters (C0, DEL and C1, line breaks and tabs
// included), invisible formatting characters (Unicode category Cf: the
// bidirectional-text controls U+202A–U+202E, U+2066–U+2069, U+200E,
// U+200F and U+061C, zero-width spaces and joiners, U+FEFF, tag
// characters), the line and paragraph separators U+2028 and U+2029, and
// bytes that are not UTF-8 (`\xff`). Every other character, backslashes
// included, is kept, so text without such characters comes back
// unchanged; an escape in the output may therefore also have been in the
// input as it is.
//
// # Usage
//
//	visible.String("Pi\nng")         // `Pi\nng`
//	visible.String("abc\u202edef")   // `abc\u202edef`
//	visible.String("deliver Join")   // "deliver Join", the same string
//
// # Determinism
//
// String is a pure function of its argument, and String(String(s)) ==
// String(s).
package visible
