//go:build linux

package render

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// threadNice reads the niceness and name of each thread of the process.
func threadNice(t *testing.T) map[int]struct {
	name string
	nice int
} {
	t.Helper()
	dirs, err := filepath.Glob("/proc/self/task/*")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]struct {
		name string
		nice int
	}{}
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue // the thread has exited
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		fields := strings.Fields(s[end+2:]) // fields[0] is stat field 3, the state
		nice, _ := strconv.Atoi(fields[16]) // stat field 19
		tid, _ := strconv.Atoi(filepath.Base(d))
		out[tid] = struct {
			name string
			nice int
		}{s[open+1 : end], nice}
	}
	return out
}

// The render thread and the rasteriser threads llvmpipe starts from it run
// at nice +10 unless the Config asks for normal priority. llvmpipe starts
// its threads with the first context of the process, so the check runs in a
// fresh test process whose first context is a default one.
func TestRenderThreadsNiced(t *testing.T) {
	needDisplay(t)
	if os.Getenv("HAPTEX_RENDER_NICE_CHILD") == "1" {
		checkNiced(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRenderThreadsNiced$", "-test.v")
	cmd.Env = append(os.Environ(), "HAPTEX_RENDER_NICE_CHILD=1")
	out, err := cmd.CombinedOutput()
	t.Logf("child process:\n%s", out)
	if err != nil {
		t.Errorf("child process: %v", err)
	}
}

func checkNiced(t *testing.T) {
	o := newTestOffscreen(t, Config{Width: 64, Height: 32})
	render(t, o, showcaseFrame(8), StandCamera())
	var tid int
	testThread.Call(func() { tid = syscall.Gettid() })
	threads := threadNice(t)
	if n := threads[tid].nice; n != renderNice {
		t.Errorf("render thread nice %d, want %d", n, renderNice)
	}
	raster := 0
	for _, th := range threads {
		if strings.HasPrefix(th.name, "llvmpipe") {
			raster++
			if th.nice != renderNice {
				t.Errorf("thread %q nice %d, want %d", th.name, th.nice, renderNice)
			}
		}
	}
	t.Logf("%d llvmpipe threads", raster)
}
