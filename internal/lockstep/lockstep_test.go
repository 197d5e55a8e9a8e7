package lockstep

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestOrderAndTies(t *testing.T) {
	var log []string
	rec := func(name string) func(time.Duration) {
		return func(t time.Duration) { log = append(log, fmt.Sprintf("%s@%v", name, t)) }
	}
	r := New(
		Task{Name: "haptics", Period: time.Millisecond, Step: rec("h")},
		Task{Name: "sim", Period: 2 * time.Millisecond, Step: rec("s")},
		Task{Name: "tactile", Period: 3 * time.Millisecond, Offset: time.Millisecond, Step: rec("t")},
	)
	r.RunUntil(4 * time.Millisecond)
	want := "[h@0s s@0s h@1ms t@1ms h@2ms s@2ms h@3ms]"
	if got := fmt.Sprint(log); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	if r.Now() != 3*time.Millisecond || r.Ticks(0) != 4 {
		t.Fatalf("now %v, haptics ticks %d", r.Now(), r.Ticks(0))
	}
	// Continuing picks up exactly where it stopped.
	log = nil
	r.RunUntil(5 * time.Millisecond)
	if got := fmt.Sprint(log); got != "[h@4ms s@4ms t@4ms]" {
		t.Fatalf("continuation: %s", got)
	}
}

func TestRunWhile(t *testing.T) {
	n := 0
	r := New(Task{Name: "a", Period: time.Millisecond, Step: func(time.Duration) { n++ }})
	at := r.RunWhile(time.Second, func() bool { return n < 10 })
	if n != 10 || at != 9*time.Millisecond {
		t.Fatalf("ran %d ticks, stopped at %v", n, at)
	}
}

// pipeLog records a run of a plain 1 ms task and a pipelined 2 ms one.
type pipeLog struct {
	log   []string
	work  int // Works run, counted on their goroutine
	value int // the pipelined task's published result
	state int // its private state, touched by Work only
}

func (p *pipeLog) tasks() []Task {
	return []Task{
		{Name: "h", Period: time.Millisecond, Step: func(t time.Duration) {
			p.log = append(p.log, fmt.Sprintf("h@%v=%d", t, p.value))
		}},
		{Name: "s", Period: 2 * time.Millisecond,
			Begin:  func(t time.Duration) { p.log = append(p.log, fmt.Sprintf("begin@%v", t)) },
			Work:   func() { p.work++; p.state += 10 },
			Commit: func() { p.value = p.state; p.log = append(p.log, fmt.Sprintf("commit=%d", p.value)) },
		},
	}
}

// A pipelined task's result appears one period after its Begin, before
// the ticks due then, and Flush publishes the last one.
func TestPipelineOrder(t *testing.T) {
	var p pipeLog
	r := New(p.tasks()...)
	r.RunUntil(5 * time.Millisecond)
	want := "[h@0s=0 begin@0s h@1ms=0 commit=10 h@2ms=10 begin@2ms h@3ms=10 commit=20 h@4ms=20 begin@4ms]"
	if got := fmt.Sprint(p.log); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if p.work != 3 {
		t.Fatalf("%d works, want 3", p.work)
	}
	r.Flush()
	if p.value != 30 {
		t.Fatalf("after Flush the result is %d, want 30", p.value)
	}
}

// Cutting a run into chunks changes nothing: a commit due after a chunk's
// end waits for the next chunk.
func TestPipelineChunks(t *testing.T) {
	var whole pipeLog
	r := New(whole.tasks()...)
	r.RunUntil(12 * time.Millisecond)
	for _, chunk := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond, 5 * time.Millisecond} {
		var p pipeLog
		r := New(p.tasks()...)
		for end := chunk; end < 12*time.Millisecond+chunk; end += chunk {
			r.RunUntil(min(end, 12*time.Millisecond))
		}
		if fmt.Sprint(p.log) != fmt.Sprint(whole.log) {
			t.Fatalf("chunks of %v:\n%v\nwhole run:\n%v", chunk, p.log, whole.log)
		}
	}
}

// Work runs while the other tasks tick: here it cannot finish until the
// plain task's next tick has run.
func TestPipelineOverlaps(t *testing.T) {
	ticked := make(chan struct{})
	var overlapped bool
	r := New(
		Task{Name: "h", Period: time.Millisecond, Step: func(t time.Duration) {
			if t == time.Millisecond {
				close(ticked)
			}
		}},
		Task{Name: "s", Period: 2 * time.Millisecond,
			Begin: func(time.Duration) {},
			Work: func() {
				select {
				case <-ticked:
					overlapped = true
				case <-time.After(10 * time.Second):
				}
			},
			Commit: func() {},
		},
	)
	r.RunUntil(2 * time.Millisecond)
	if !overlapped {
		t.Fatal("Work did not run alongside the next tick")
	}
}

// A task's Assist runs the shares its Work offers on the runner's
// goroutine: here Work cannot finish until the runner has run its share.
// The log and the result are those of a run without Assist.
func TestPipelineAssist(t *testing.T) {
	var plain pipeLog
	New(plain.tasks()...).RunUntil(9 * time.Millisecond)

	var p pipeLog
	tasks := p.tasks()
	var share atomic.Int32 // 1: offered, 2: claimed, 3: done
	var assisted int       // on the runner's goroutine
	work := tasks[1].Work
	tasks[1].Work = func() {
		share.Store(1)
		deadline := time.Now().Add(10 * time.Second)
		for share.Load() != 3 && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		work()
	}
	tasks[1].Assist = func() bool {
		if !share.CompareAndSwap(1, 2) {
			return false
		}
		assisted++
		share.Store(3)
		return true
	}
	r := New(tasks...)
	r.RunUntil(9 * time.Millisecond)
	if assisted != 5 {
		t.Fatalf("the runner ran %d shares in 5 Works", assisted)
	}
	if fmt.Sprint(p.log) != fmt.Sprint(plain.log) {
		t.Fatalf("assisted:\n%v\nplain:\n%v", p.log, plain.log)
	}
}

// A run paused for longer than its worker spins parks the worker, and
// resumes where it stopped.
func TestPipelineAfterPause(t *testing.T) {
	var p pipeLog
	r := New(p.tasks()...)
	r.RunUntil(3 * time.Millisecond)
	// The worker parks once it has yielded workerSpin times: about a
	// millisecond here, allowed 5 s on a loaded machine.
	w := &r.pipes[1]
	for deadline := time.Now().Add(5 * time.Second); !w.parked.Load() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if !w.parked.Load() {
		t.Fatal("the worker still polls 5 s after the last Work")
	}
	r.RunUntil(6 * time.Millisecond)
	r.Flush()
	if p.work != 3 || p.value != 30 {
		t.Fatalf("%d works, result %d; want 3 and 30", p.work, p.value)
	}
}

func TestNewRejectsBadTasks(t *testing.T) {
	step := func(time.Duration) {}
	for _, task := range []Task{
		{Name: "no step", Period: time.Millisecond},
		{Name: "both", Period: time.Millisecond, Step: step, Begin: step, Work: func() {}, Commit: func() {}},
		{Name: "half a pipeline", Period: time.Millisecond, Begin: step, Work: func() {}},
		{Name: "zero period", Step: step},
		{Name: "assist without a pipeline", Period: time.Millisecond, Step: step, Assist: func() bool { return false }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", task.Name)
				}
			}()
			New(task)
		}()
	}
}
