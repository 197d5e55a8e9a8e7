package report

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// browser drives a headless Chromium through its DevTools protocol over
// a pipe (--remote-debugging-pipe: JSON messages ending in a NUL byte,
// ours on its fd 3, its own on fd 4).
type browser struct {
	cmd    *exec.Cmd
	in     *os.File // we write
	out    *bufio.Reader
	stderr bytes.Buffer
	mu     sync.Mutex
	nextID int
	events []cdpMessage
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId,omitempty"`
}

// chromiumPath finds Debian's chromium; tests skip without it unless the
// machine could have installed it (root), where its absence is a failure.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Geteuid() == 0 {
		t.Fatal("chromium is not installed: make test installs it as root (Makefile DEB_PKGS)")
	}
	t.Skip("chromium is not installed and this is not root: install Debian's chromium to check the report pages")
	return ""
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromiumPath(t)
	toChrome, ours, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	theirs, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{in: ours, out: bufio.NewReader(theirs)}
	b.cmd = exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir="+t.TempDir(), "--remote-debugging-pipe", "about:blank")
	b.cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // its fds 3 and 4
	b.cmd.Stderr = &b.stderr
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toChrome.Close()
	fromChrome.Close()
	t.Cleanup(func() {
		b.in.Close()
		b.cmd.Process.Kill()
		b.cmd.Wait()
	})
	return b
}

// call sends a command and waits for its answer, keeping the events
// that arrive meanwhile; deadline bounds the wait.
func (b *browser) call(session, method string, params any, deadline time.Time) (json.RawMessage, error) {
	b.nextID++
	id := b.nextID
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	for {
		m, err := b.read(deadline)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if m.ID == id {
			if m.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
			}
			return m.Result, nil
		}
	}
}

// read returns the next message, keeping events; it gives up at the
// deadline (the read runs on its own goroutine so the wait is bounded).
func (b *browser) read(deadline time.Time) (cdpMessage, error) {
	type res struct {
		line []byte
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		line, err := b.out.ReadBytes(0)
		ch <- res{line, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return cdpMessage{}, fmt.Errorf("chromium closed the pipe: %w\n%s", r.err, b.stderr.String())
		}
		var m cdpMessage
		if err := json.Unmarshal(bytes.TrimSuffix(r.line, []byte{0}), &m); err != nil {
			return cdpMessage{}, err
		}
		if m.Method != "" {
			b.events = append(b.events, m)
		}
		return m, nil
	case <-time.After(time.Until(deadline)):
		return cdpMessage{}, fmt.Errorf("no answer from chromium in time\n%s", b.stderr.String())
	}
}

// pageCheck is what loading a page gave: its console errors and a
// screenshot.
type pageCheck struct {
	errors     []string
	screenshot image.Image
	title      string
}

// load opens a file in a new tab at 1280 x 900, waits for its load event,
// and returns the errors the page logged and a screenshot of all of it.
func (b *browser) load(path string, timeout time.Duration) (*pageCheck, error) {
	deadline := time.Now().Add(timeout)
	res, err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, deadline)
	if err != nil {
		return nil, err
	}
	var target struct{ TargetID string }
	json.Unmarshal(res, &target)
	res, err = b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, deadline)
	if err != nil {
		return nil, err
	}
	var att struct{ SessionID string }
	json.Unmarshal(res, &att)
	s := att.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if _, err := b.call(s, m, nil, deadline); err != nil {
			return nil, err
		}
	}
	if _, err := b.call(s, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}, deadline); err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(path)
	b.events = b.events[:0]
	if _, err := b.call(s, "Page.navigate", map[string]any{"url": "file://" + abs}, deadline); err != nil {
		return nil, err
	}
	for !b.seen(s, "Page.loadEventFired") {
		if _, err := b.read(deadline); err != nil {
			return nil, err
		}
	}
	// Let late console messages and image decoding settle.
	if _, err := b.call(s, "Runtime.evaluate", map[string]any{"expression": "new Promise(r => setTimeout(r, 300))", "awaitPromise": true}, deadline); err != nil {
		return nil, err
	}
	res, err = b.call(s, "Runtime.evaluate", map[string]any{"expression": "document.title + '|' + Array.from(document.images).filter(i => !i.complete || i.naturalWidth == 0).length", "returnByValue": true}, deadline)
	if err != nil {
		return nil, err
	}
	var ev struct{ Result struct{ Value string } }
	json.Unmarshal(res, &ev)
	pc := &pageCheck{}
	title, broken, _ := strings.Cut(ev.Result.Value, "|")
	pc.title = title
	if broken != "0" {
		pc.errors = append(pc.errors, broken+" images did not load")
	}
	for _, e := range b.events {
		if e.SessionID != s {
			continue
		}
		switch e.Method {
		case "Runtime.exceptionThrown":
			pc.errors = append(pc.errors, "exception: "+string(e.Params))
		case "Runtime.consoleAPICalled":
			var p struct{ Type string }
			json.Unmarshal(e.Params, &p)
			if p.Type == "error" || p.Type == "assert" {
				pc.errors = append(pc.errors, "console: "+string(e.Params))
			}
		case "Log.entryAdded":
			var p struct {
				Entry struct{ Level, Text, URL string }
			}
			json.Unmarshal(e.Params, &p)
			if p.Entry.Level == "error" {
				pc.errors = append(pc.errors, fmt.Sprintf("log: %s %s", p.Entry.Text, p.Entry.URL))
			}
		}
	}
	res, err = b.call(s, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, deadline)
	if err != nil {
		return nil, err
	}
	var shot struct{ Data string }
	json.Unmarshal(res, &shot)
	raw, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		return nil, err
	}
	if pc.screenshot, err = png.Decode(bytes.NewReader(raw)); err != nil {
		return nil, err
	}
	return pc, nil
}

func (b *browser) seen(session, method string) bool {
	for _, e := range b.events {
		if e.Method == method && e.SessionID == session {
			return true
		}
	}
	return false
}

// inkShare is the share of the image's pixels that are not the page's
// white background, and the number of distinct colours it holds.
func inkShare(img image.Image) (float64, int) {
	r := img.Bounds()
	ink, total := 0, 0
	colours := map[[3]uint32]bool{}
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			total++
			if cr < 0xf000 || cg < 0xf000 || cb < 0xf000 {
				ink++
			}
			if len(colours) < 10000 {
				colours[[3]uint32{cr >> 10, cg >> 10, cb >> 10}] = true
			}
		}
	}
	return float64(ink) / float64(total), len(colours)
}
