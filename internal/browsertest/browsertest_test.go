package browsertest

import (
	"reflect"
	"testing"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
)

// TestRecord: what a page must never do is recorded, and only that — a
// console.log, an info log entry, the page's own load and a data: URL are
// not problems.
func TestRecord(t *testing.T) {
	p := &Page{URL: "file:///tmp/x/report.html"}
	for _, ev := range []any{
		&runtime.EventConsoleAPICalled{Type: runtime.ConsoleAPICalledTypeLog, Args: []*runtime.RemoteObject{{Description: "fine"}}},
		&runtime.EventConsoleAPICalled{Type: runtime.ConsoleAPICalledTypeError, Args: []*runtime.RemoteObject{{Description: "boom"}}},
		&runtime.EventExceptionThrown{ExceptionDetails: &runtime.ExceptionDetails{Text: "Uncaught", Exception: &runtime.RemoteObject{Description: "TypeError: x"}}},
		&cdplog.EventEntryAdded{Entry: &cdplog.Entry{Level: cdplog.EntryLevelInfo, Text: "info"}},
		&cdplog.EventEntryAdded{Entry: &cdplog.Entry{Level: cdplog.EntryLevelError, Source: cdplog.EntrySourceNetwork, Text: "failed", URL: "https://x"}},
		&network.EventRequestWillBeSent{Request: &network.Request{URL: "file:///tmp/x/report.html"}},
		&network.EventRequestWillBeSent{Request: &network.Request{URL: "data:image/png;base64,AA=="}},
		&network.EventRequestWillBeSent{Request: &network.Request{URL: "https://cdn.example/x.js"}},
	} {
		p.record(ev)
	}
	want := []string{
		"console error: boom",
		"exception: Uncaught TypeError: x",
		"log network error: failed https://x",
		"request: https://cdn.example/x.js",
	}
	if got := p.Problems(); !reflect.DeepEqual(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
}
