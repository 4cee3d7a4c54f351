package report

import "testing"

// What summary.md shows of the protocol's text is text,
// never Markdown or HTML that a renderer would run.
func TestMarkdownEscaping(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"deliver Join → NewRoot", "deliver Join → NewRoot"},
		{"p = 0.016 < 0.05 & more", "p = 0.016 < 0.05 & more"},
		{"<img src=x onerror=alert(1)>", `\<img src=x onerror=alert(1)>`},
		{"</script><script>x</script>", `\</script>\<script>x\</script>`},
		{"<!-- c -->", `\<!-- c -->`},
		{"&lt;b&gt; &#60;", `\&lt;b\&gt; \&#60;`},
		{"[x](javascript:alert(1))", `\[x\](javascript:alert(1))`},
		{"**b** _i_ ~s~ `c` $m$", `\*\*b\*\* \_i\_ \~s\~ \` + "`c\\`" + ` \$m\$`},
		{`a\b`, `a\\b`},
		{"a|b", `a\|b`},
		{"two\n# lines", "two # lines"},
		{"rtl\u202eevil", `rtl\\u202eevil`},
	} {
		if got := mdText(c.in); got != c.want {
			t.Errorf("mdText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"deliver Join", "`deliver Join`"},
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
		{"x ``` y", "````x ``` y````"},
		{"<img src=x>", "`<img src=x>`"},
		{"rtl\u202e\nx", "`rtl\\u202e\\nx`"},
	} {
		if got := mdCode(c.in); got != c.want {
			t.Errorf("mdCode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := mdCodeCell("a|b"); got != "`a\\|b`" {
		t.Errorf("mdCodeCell = %q", got)
	}
	if got := mdFence("macepc replay --path '```'\n"); got != "````" {
		t.Errorf("mdFence = %q", got)
	}
}
