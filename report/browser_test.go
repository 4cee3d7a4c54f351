package report_test

import (
	"bytes"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/macepc/macepc/internal/browsertest"
	"github.com/macepc/macepc/report"
	"github.com/macepc/macepc/results"
)

// TestReportInBrowser opens report.html of the RandTree buggy run and of
// a regress directory in headless Chromium: no console errors, exceptions
// or error log entries, no request but the report itself (a failed
// resource load is an error log entry, any load a request), every section
// there, and a full-page screenshot that is not blank.
// MACEPC_SCREENSHOT=FILE keeps the run's screenshot. Without Chromium the
// test is skipped, unless MACEPC_REQUIRE_BROWSER=1 (CI) makes that a
// failure.
func TestReportInBrowser(t *testing.T) {
	bin := browsertest.Chromium(t, "report.html")
	t.Run("run", func(t *testing.T) {
		shot := openInBrowser(t, bin, runPipeline(t), "randtree/buggy", 2000, []check{
			{"the verdict banner names the cause, the critical path's first", `(() => { const c = document.querySelector("#verdict .verdict.finding #cause"); return c && /^Cause: the whole .+ excess: n\d+ waiting on timer recovery .+; divergence at step \d+, .+; top-ranked label .+ \(r = [+-]\d/.test(c.textContent) ? "" : "no cause in the red banner: " + document.querySelector("#verdict").textContent })()`},
			{"the diff box shows its rule whole", `(() => { const pre = document.querySelector("#diff pre"), dp = pre && pre.querySelector(".dp"); if (!dp) return "no divergence point rule in the diff box"; const r = dp.getBoundingClientRect(), p = pre.getBoundingClientRect(); return pre.scrollWidth <= pre.clientWidth && r.right <= p.right - parseFloat(getComputedStyle(pre).paddingRight) + 0.5 && dp.textContent.endsWith("divergence point") ? "" : "the rule " + JSON.stringify(dp.textContent.slice(-30)) + " ends at " + r.right + " px, the box at " + p.right + " px (scroll width " + pre.scrollWidth + ", client " + pre.clientWidth + ")" })()`},
			{"the event graph's texts do not overlap", textsOverlapJS("#eventgraph svg")},
		})
		if p := os.Getenv("MACEPC_SCREENSHOT"); p != "" {
			if err := os.WriteFile(p, shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("regress", func(t *testing.T) {
		dir, _ := regressDir(t, "deliver Join=200000")
		shot := openInBrowser(t, bin, dir, "regression report: randtree/fixed", 1500, []check{
			{"a red banner", `document.querySelector("#verdict .verdict.finding") ? "" : "no red banner"`},
			{"no placeholder of a phase regress never runs", `(() => { const m = [...document.querySelectorAll(".missing, #search, #divergence, #correlation, #completion, #eventgraph, #diff")]; return m.length === 0 ? "" : m.length + " placeholders or sections of phases regress never runs, the first " + (m[0].id || m[0].textContent) })()`},
			{"the slowest execution to replay", `(() => { const r = document.querySelector("#replay"); return r && /the slowest current execution, execution \d+/.test(r.textContent) && r.textContent.includes("macepc replay --path regress-slowest.path.json") && !r.textContent.includes("Nothing to replay") ? "" : "replay section: " + (r ? r.textContent : "none") })()`},
		})
		if p := os.Getenv("MACEPC_SCREENSHOT_REGRESS"); p != "" {
			if err := os.WriteFile(p, shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("regress warning", func(t *testing.T) {
		dir, _ := regressDir(t, "deliver Join=3")
		editRegress(t, dir, func(rj map[string]any) {
			rj["regression"] = false
			rj["warnings"] = []string{"3 of 20 executions above the baseline's threshold, more than the baseline but not significant"}
		})
		openInBrowser(t, bin, dir, "regression report: randtree/fixed", 1000, []check{
			{"an amber banner over a warning", `(() => { const v = document.querySelector("#verdict .verdict"); const c = getComputedStyle(v).backgroundColor; return v.classList.contains("caution") && c !== getComputedStyle(document.body).backgroundColor && !document.querySelector(".verdict.clean") ? "" : "banner " + v.className + " on " + c })()`},
		})
	})
}

// A check is a JavaScript expression evaluated in the report's page: ""
// when it holds, else what is wrong.
type check struct{ what, js string }

// textsOverlapJS checks that no two texts of the SVG figures matching sel
// overlap as the browser draws them (the axes' rotated titles aside).
func textsOverlapJS(sel string) string {
	return `(() => {
  for (const svg of document.querySelectorAll(` + strconv.Quote(sel) + `)) {
    const ts = [...svg.querySelectorAll("text")].filter(t => !/rotate/.test(t.getAttribute("transform") || "")).map(t => ({s: t.textContent, r: t.getBoundingClientRect()}));
    for (let i = 0; i < ts.length; i++) for (let j = i + 1; j < ts.length; j++) {
      const a = ts[i].r, b = ts[j].r;
      if (a.width > 0 && b.width > 0 && a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
        return JSON.stringify(ts[i].s) + " overlaps " + JSON.stringify(ts[j].s);
    }
  }
  return "";
})()`
}

// openInBrowser renders and checks the report of dir in Chromium and
// returns its full-page screenshot.
func openInBrowser(t *testing.T, bin, dir, wantTitle string, minHeight int, checks []check) []byte {
	t.Helper()
	r := load(t, dir)
	figs := renderFigures(t, r)
	if err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	page := browsertest.Open(t, bin, filepath.Join(dir, results.FileReport), 1100, 900)
	bctx := page.Ctx

	ids := report.Sections(r, figs)
	idsJS := `["` + strings.Join(ids, `","`) + `"]`
	if err := chromedp.Do(bctx, chromedp.Navigate(page.URL), chromedp.WaitReady("body")); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	title, err := chromedp.Run(bctx, chromedp.Title())
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	found, err := chromedp.Run(bctx, chromedp.Evaluate[[]bool](idsJS+`.map(id => document.getElementById(id) !== null)`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	svgs, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll("figure svg").length`))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	for _, c := range checks {
		got, err := chromedp.Run(bctx, chromedp.Evaluate[string](c.js))
		if err != nil {
			t.Fatalf("chromium: %s: %v", c.what, err)
		}
		if got != "" {
			t.Errorf("%s: %s", c.what, got)
		}
	}
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	for _, p := range page.Problems() {
		t.Errorf("report.html: %s", p)
	}
	if !strings.Contains(title, wantTitle) {
		t.Errorf("page title %q, want it to contain %q", title, wantTitle)
	}
	for i, id := range ids {
		if i >= len(found) || !found[i] {
			t.Errorf("report.html has no section #%s", id)
		}
	}
	if svgs != len(figs) {
		t.Errorf("%d inline SVG figures in the page, want %d", svgs, len(figs))
	}
	img, _, err := image.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if img.Bounds().Dy() < minHeight {
		t.Errorf("the full page is only %d px tall: the report is not all there", img.Bounds().Dy())
	}
	if frac := nonWhite(img); frac < 0.03 {
		t.Errorf("the screenshot is blank: %.4f of its pixels are drawn", frac)
	}
	return shot
}
