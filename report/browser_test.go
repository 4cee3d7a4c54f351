package report_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/macepc/macepc/report"
)

// findChromium returns the path of a Chromium binary, "" if none.
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestReportInBrowser opens report.html of the RandTree buggy run and of
// a regress directory in headless Chromium: no console errors, exceptions
// or error log entries, no request but the report itself (a failed
// resource load is an error log entry, any load a request), every section
// there, and a full-page screenshot that is not blank.
// MACEPC_SCREENSHOT=FILE keeps the run's screenshot. Without Chromium the
// test is skipped, unless MACEPC_REQUIRE_BROWSER=1 (CI) makes that a
// failure.
func TestReportInBrowser(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		if os.Getenv("MACEPC_REQUIRE_BROWSER") == "1" {
			t.Fatal("no Chromium installed (Debian: apt-get install chromium) and MACEPC_REQUIRE_BROWSER=1: the real-browser test of report.html must run")
		}
		t.Skip("no Chromium installed (Debian: apt-get install chromium): the real-browser test of report.html is skipped (MACEPC_REQUIRE_BROWSER=1 makes this a failure)")
	}
	t.Run("run", func(t *testing.T) {
		shot := openInBrowser(t, bin, runPipeline(t), "randtree/buggy", 2000)
		if p := os.Getenv("MACEPC_SCREENSHOT"); p != "" {
			if err := os.WriteFile(p, shot, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("regress", func(t *testing.T) {
		dir, _ := regressDir(t, "deliver Join=200000")
		openInBrowser(t, bin, dir, "regression report: randtree/buggy", 1500)
	})
}

// openInBrowser renders and checks the report of dir in Chromium and
// returns its full-page screenshot.
func openInBrowser(t *testing.T, bin, dir, wantTitle string, minHeight int) []byte {
	t.Helper()
	r, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := report.RenderFigures(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Join(dir, report.FileHTML))
	if err != nil {
		t.Fatal(err)
	}
	docURL := "file://" + abs

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 900),
	}
	// A safety net against a hung browser, not a performance bound.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	defer acancel()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()

	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(bctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, a.Description+string(a.Value))
				}
				problems = append(problems, fmt.Sprintf("console %s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, "exception: "+msg)
		case *cdplog.EventEntryAdded:
			if e := ev.Entry; e != nil && e.Level == cdplog.EntryLevelError {
				problems = append(problems, fmt.Sprintf("log %s error: %s %s", e.Source, e.Text, e.URL))
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; u != docURL && !strings.HasPrefix(u, "data:") {
				problems = append(problems, "request: "+u)
			}
		}
	}); err != nil {
		t.Fatalf("chromium: %v", err)
	}

	ids := report.Sections(r, figs)
	idsJS := `["` + strings.Join(ids, `","`) + `"]`
	if err := chromedp.Do(bctx, chromedp.Navigate(docURL), chromedp.WaitReady("body")); err != nil {
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
	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
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
