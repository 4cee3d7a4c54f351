package explore

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"

	"github.com/macepc/macepc/internal/atomicfile"
)

//go:embed page.js
var pageJS string

//go:embed page.css
var pageCSS string

//go:embed page.html
var pageBody string

// Write writes explore.html for d: one self-contained file, the data
// embedded as JSON (encoding/json escapes '<', '>' and '&', so the data
// cannot end its script element), the page's script and style inline.
func Write(w io.Writer, d *Data) error {
	wd, err := encode(d)
	if err != nil {
		return err
	}
	b, err := json.Marshal(wd)
	if err != nil {
		return fmt.Errorf("explore: encoding the data: %w", err)
	}
	bw := bufio.NewWriter(w)
	title := html.EscapeString("macepc explore: " + d.Title)
	bw.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
	bw.WriteString(title)
	bw.WriteString("</title>\n<style>\n")
	bw.WriteString(pageCSS)
	bw.WriteString("</style>\n</head>\n<body>\n")
	bw.WriteString(pageBody)
	bw.WriteString("<script type=\"application/json\" id=\"explore-data\">")
	bw.Write(b)
	bw.WriteString("</script>\n<script>\n")
	bw.WriteString(pageJS)
	bw.WriteString("</script>\n</body>\n</html>\n")
	return bw.Flush()
}

// WriteFile writes explore.html for d to path atomically (a temporary
// file renamed into place).
func WriteFile(path string, d *Data) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, d) })
}
