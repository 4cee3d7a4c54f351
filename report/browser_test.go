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

// TestReportInBrowser opens report.html of the RandTree buggy run in
// headless Chromium: no console errors or exceptions, every section there,
// and a full-page screenshot that is not blank. MACEPC_SCREENSHOT=FILE
// keeps the screenshot.
func TestReportInBrowser(t *testing.T) {
	bin := findChromium()
	if bin == "" {
		t.Skip("no Chromium installed (Debian: apt-get install chromium): the real-browser test of report.html is skipped")
	}
	dir := runPipeline(t)
	r, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := report.RenderFigures(r)
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(filepath.Join(dir, report.FileHTML))
	if err != nil {
		t.Fatal(err)
	}

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
		}
	}); err != nil {
		t.Fatalf("chromium: %v", err)
	}

	ids := report.Sections(r, figs)
	idsJS := `["` + strings.Join(ids, `","`) + `"]`
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady("body")); err != nil {
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
	if !strings.Contains(title, "randtree/buggy") {
		t.Errorf("page title %q", title)
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
	if img.Bounds().Dy() < 2000 {
		t.Errorf("the full page is only %d px tall: the report is not all there", img.Bounds().Dy())
	}
	if frac := nonWhite(img); frac < 0.03 {
		t.Errorf("the screenshot is blank: %.4f of its pixels are drawn", frac)
	}
	if p := os.Getenv("MACEPC_SCREENSHOT"); p != "" {
		if err := os.WriteFile(p, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
