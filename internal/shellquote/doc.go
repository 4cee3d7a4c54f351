// Package shellquote quotes the words of the commands macepc prints for
// people to paste into a POSIX shell ("replay: macepc replay --path
// DIR/anomaly.path.json"), so that a path chosen by someone else, such as
// "$(touch PWNED)", is one literal word and not a command substitution.
//
// A word made only of characters no shell treats specially (letters,
// digits and "_%+,./:@-") is printed as it is; any other word is put in
// single quotes, each single quote inside closing the quotes, escaped and
// reopening them; the empty word is two single quotes:
//
//	it's  ->  'it'\''s'
//
// # Usage
//
//	shellquote.Quote("macepc-out/anomaly.path.json") // macepc-out/anomaly.path.json
//	shellquote.Quote("$(touch PWNED)")               // '$(touch PWNED)'
//	shellquote.Join("macepc", "replay", "--path", p) // macepc replay --path '…'
//
// # Determinism
//
// Quoting is a pure function of its arguments.
package shellquote
