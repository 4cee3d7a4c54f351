package browsertest

import (
	"context"
	"fmt"
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
)

// Chromium returns the path of a Chromium binary. Without one it skips t,
// or fails it when MACEPC_REQUIRE_BROWSER=1 (CI); what names the page
// under test in the message.
func Chromium(t testing.TB, what string) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("MACEPC_REQUIRE_BROWSER") == "1" {
		t.Fatalf("no Chromium installed (Debian: apt-get install chromium) and MACEPC_REQUIRE_BROWSER=1: the real-browser test of %s must run", what)
	}
	t.Skipf("no Chromium installed (Debian: apt-get install chromium): the real-browser test of %s is skipped (MACEPC_REQUIRE_BROWSER=1 makes this a failure)", what)
	return ""
}

// Page is a headless Chromium tab for one file, not yet navigated to it.
type Page struct {
	Ctx context.Context // the tab, for chromedp.Run
	URL string          // the file's file:// URL

	mu       sync.Mutex
	problems []string
}

// Open starts headless Chromium (bin) with a width×height window for file,
// and records the page's problems from then on. The browser ends with t;
// a 2-minute limit is a safety net against a hung browser, not a
// performance bound.
func Open(t testing.TB, bin, file string, width, height int) *Page {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(width, height),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	p := &Page{Ctx: bctx, URL: "file://" + abs}
	if err := chromedp.Listen(bctx, p.record); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return p
}

// record keeps one event that the page must never cause.
func (p *Page) record(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			var args []string
			for _, a := range ev.Args {
				args = append(args, a.Description+string(a.Value))
			}
			p.problems = append(p.problems, fmt.Sprintf("console %s: %s", ev.Type, strings.Join(args, " ")))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		p.problems = append(p.problems, "exception: "+msg)
	case *cdplog.EventEntryAdded:
		if e := ev.Entry; e != nil && e.Level == cdplog.EntryLevelError {
			p.problems = append(p.problems, fmt.Sprintf("log %s error: %s %s", e.Source, e.Text, e.URL))
		}
	case *network.EventRequestWillBeSent:
		if u := ev.Request.URL; u != p.URL && !strings.HasPrefix(u, "data:") {
			p.problems = append(p.problems, "request: "+u)
		}
	}
}

// Problems returns what the page did that it must not, so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.problems...)
}
