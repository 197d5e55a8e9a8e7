package render

import (
	"errors"
	"runtime"
	"sync"
)

// ErrThreadStopped is returned by Thread.Call after Stop.
var ErrThreadStopped = errors.New("render: thread stopped")

// Thread is one OS thread that runs every GLFW and OpenGL call of a
// process. GLFW must be initialised, and its windows created and polled,
// from one thread (on macOS, the process's main thread), and a GL context
// is current on one thread at a time; a Thread gives both an explicit
// owner instead of a package init that locks the main thread.
//
// On Linux any goroutine may serve as the Thread: StartThread is enough.
// Where the main thread is required, call runtime.LockOSThread in the main
// package's init, then NewThread and Run from main, and do the rest of the
// program's work in other goroutines.
type Thread struct {
	calls    chan *request
	done     chan struct{}
	stopOnce sync.Once
}

// NewThread returns a Thread that serves calls once Run is called.
func NewThread() *Thread {
	return &Thread{calls: make(chan *request), done: make(chan struct{})}
}

// StartThread returns a Thread already running on a goroutine of its own,
// locked to its OS thread.
func StartThread() *Thread {
	t := NewThread()
	go t.Run()
	return t
}

// Run locks the calling goroutine to its OS thread and runs the functions
// passed to Call, one at a time, until Stop. It returns after Stop.
func (t *Thread) Run() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for {
		select {
		case r := <-t.calls:
			r.f()
			r.finished <- struct{}{}
		case <-t.done:
			return
		}
	}
}

// Call runs f on the thread and returns when f has returned. It returns
// ErrThreadStopped without running f once Stop has been called. f must not
// call Call on the same Thread.
func (t *Thread) Call(f func()) error {
	return t.call(newRequest(f))
}

// request is one Call. A caller that calls the same function every frame
// keeps its request and reuses it, so the call allocates nothing.
type request struct {
	f        func()
	finished chan struct{}
}

func newRequest(f func()) *request {
	return &request{f: f, finished: make(chan struct{}, 1)}
}

func (t *Thread) call(r *request) error {
	select {
	case t.calls <- r:
	case <-t.done:
		return ErrThreadStopped
	}
	<-r.finished
	return nil
}

// Stop makes Run return once the call in progress, if any, has finished.
// It may be called more than once.
func (t *Thread) Stop() {
	t.stopOnce.Do(func() { close(t.done) })
}
