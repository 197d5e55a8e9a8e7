package render

import (
	"errors"
	"syscall"
	"testing"
)

func TestThreadRunsOnOneOSThread(t *testing.T) {
	th := StartThread()
	defer th.Stop()
	var first int
	if err := th.Call(func() { first = syscall.Gettid() }); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		var tid int
		th.Call(func() { tid = syscall.Gettid() })
		if tid != first {
			t.Fatalf("call %d ran on thread %d, the first on %d", i, tid, first)
		}
	}
	th.Stop()
	th.Stop()
	if err := th.Call(func() { t.Error("ran after Stop") }); !errors.Is(err, ErrThreadStopped) {
		t.Errorf("Call after Stop: %v, want ErrThreadStopped", err)
	}
}

func TestThreadCallAllocs(t *testing.T) {
	th := StartThread()
	defer th.Stop()
	n := 0
	req := newRequest(func() { n++ })
	if a := testing.AllocsPerRun(100, func() { th.call(req) }); a != 0 {
		t.Errorf("a reused request allocates %v times per call", a)
	}
}
