package shellquote

import "strings"

// Quote returns word as one word of a POSIX shell command: word itself
// when every character is safe (ASCII letters, digits and "_%+,./:@-"),
// else word in single quotes (the package doc shows how a single quote
// inside is written).
func Quote(word string) string {
	if word != "" && safe(word) {
		return word
	}
	return "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
}

// Join quotes each word and joins them with spaces: a command line.
func Join(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}

// safe reports whether no character of s means anything to a shell. '='
// and '~' are left out (zsh expands a word starting with '=', shells a
// word starting with '~'), and so is every non-ASCII character, which can
// hide others (bidirectional-text controls).
func safe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("_%+,./:@-", c) >= 0:
		default:
			return false
		}
	}
	return true
}
