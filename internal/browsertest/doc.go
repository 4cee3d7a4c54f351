// Package browsertest opens a self-contained HTML file of macepc
// (report.html, explore.html) in headless Chromium for the real-browser
// tests of package report and package explore, and records everything the
// page must never do: a console error or warning, an exception, an error
// log entry, a request for anything but the file itself.
//
// # Usage
//
//	bin := browsertest.Chromium(t, "report.html")   // skips without Chromium, unless MACEPC_REQUIRE_BROWSER=1
//	p := browsertest.Open(t, bin, file, 1100, 900)
//	chromedp.Run(p.Ctx, chromedp.Navigate(p.URL), ...)
//	for _, s := range p.Problems() { t.Errorf("report.html: %s", s) }
//
// It is imported by tests only; it is a package of its own so that the
// two tests share one set-up rather than two copies of it.
package browsertest
