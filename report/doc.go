// Package report turns a macepc results directory into pictures and one
// self-contained HTML file: report.html (inline SVG, no scripts, no network
// fetches), summary.md for terminals and CI logs, and a PNG file of every
// plot under plots/.
//
// The package reads the results directory's JSON files itself (it does not
// import cli: cli calls report), so a directory can be re-rendered from its
// files alone with `macepc report DIR`.
//
// # Usage
//
//	err := report.Write(dir) // reads DIR/*.json, writes DIR/report.html, DIR/summary.md, DIR/plots/*.png
//
// Each plot is a function over the decoded data of a results directory
// returning a *plot.Plot; Render draws a plot as SVG and PNG with the
// package's styles, for other packages' plots too.
//
// # Determinism
//
// The same results directory gives byte-identical report.html, summary.md
// and plot files: numbers are printed with fixed precision, maps are
// iterated in sorted order, and nothing records a timestamp or a host path.
package report
