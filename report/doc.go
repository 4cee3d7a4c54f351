// Package report turns a macepc results directory into pictures and one
// self-contained HTML file: report.html (inline SVG, no scripts, no network
// fetches), summary.md for terminals and CI logs, and a PNG file of every
// plot under plots/.
//
// The package reads the results directory's JSON files itself, with the
// names, types and readers of package results (it imports neither cli nor
// pipeline: they call report), so a directory can be re-rendered from its
// files alone with `macepc report DIR`.
//
// # Usage
//
//	err := report.Write(dir) // reads DIR/*.json, writes DIR/report.html, DIR/summary.md, DIR/plots/*.png
//
// Load decodes a results directory (summary.json and profile.json must be
// there; every later phase is optional). Figures turns it into the report's
// plots in order: the profile's execution-time distribution, the anomaly
// search's progress, the divergence search (MacePC's Figure 3), event
// frequency against execution time (its Figure 4), per-node completion time
// and an event graph around the divergence point. Each figure carries the
// data it is drawn from (New*Data, what the golden tests pin), a drawing
// and a reading guide; a phase that did not run gives a placeholder that
// says why, and so does a plot that fails (a bug): the rest of the report
// is kept. A `macepc regress` directory's report leads with regress.json's
// verdict and figures and shows regress.svg, which regress drew with
// RegressPlot (the baseline's execution times are not in the directory),
// then the current profile: a regress run has no later phase, so the
// report has no placeholder for them. The verdict is one line that names
// the cause when the pipeline found one (the divergence event and the
// top-ranked label); its banner is red for a finding, amber for a clean
// verdict with warnings, green otherwise.
// Render and RenderPlot draw as inline-ready SVG and PNG with the
// package's fonts and colours, for other packages' plots too; the PNG
// files under plots/ carry a line naming the run and the figure, since
// they are read apart from the HTML's headings.
//
// # Determinism
//
// The same results directory gives byte-identical report.html, summary.md
// and plot files: numbers are printed with fixed precision, maps are
// iterated in sorted order, and nothing records a timestamp or a host path.
package report
