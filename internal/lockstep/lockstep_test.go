package lockstep

import (
	"fmt"
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
