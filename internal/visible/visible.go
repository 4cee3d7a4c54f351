package visible

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s with every character that would not show as itself
// written as a Go escape (see the package doc); s itself when it has none.
func String(s string) string {
	i := 0
	for i < len(s) && ' ' <= s[i] && s[i] < utf8.RuneSelf && s[i] != 0x7f {
		i++
	}
	if i == len(s) {
		return s // printable ASCII: the common case, no allocation
	}
	for j := i; j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		if (r == utf8.RuneError && n == 1) || hidden(r) {
			return escape(s, i)
		}
		j += n
	}
	return s
}

// Is reports whether s has no character that String would escape.
func Is(s string) bool { return String(s) == s }

// hidden reports whether r would not show as itself.
func hidden(r rune) bool {
	if r < utf8.RuneSelf {
		return r < ' ' || r == 0x7f
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// escape is String of s, whose first from bytes are printable ASCII.
func escape(s string, from int) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:from])
	for i := from; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r < utf8.RuneSelf && hidden(r):
			q := strconv.QuoteRune(r) // '\n', '\x1b'
			b.WriteString(q[1 : len(q)-1])
		case hidden(r) && r <= 0xffff:
			b.WriteString(`\u`)
			b.WriteString(pad(strconv.FormatInt(int64(r), 16), 4))
		case hidden(r):
			b.WriteString(`\U`)
			b.WriteString(pad(strconv.FormatInt(int64(r), 16), 8))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

func pad(h string, n int) string {
	for len(h) < n {
		h = "0" + h
	}
	return h
}
