package rig

import (
	"fmt"
	"math"
	"strings"

	"github.com/haptex/haptex/sim"
)

// Status is a live view of a running rig.
type Status struct {
	RunS     float64 // run time of the latest haptics tick [s]
	Loops    []LoopStatus
	Contact  [sim.NumFingers]bool
	ForceN   [sim.NumFingers]float64 // force magnitude on each finger [N]
	SimSteps uint64
}

// LoopStatus is one loop's live rate and tail lateness.
type LoopStatus struct {
	Name        string
	RateHz      float64
	LatenessP99 float64 // [µs]
	Overruns    uint64
}

// Status reads the live state of a running rig. Call it from one goroutine
// only (it owns a reader of the rig's buffers); it never blocks a loop.
func (r *Rig) Status() Status {
	var s Status
	for _, l := range r.loops {
		ls := LoopStatus{Name: l.name}
		if lr := l.rt.Load(); lr != nil {
			ls.RateHz = lr.Tel.Rate()
			ls.LatenessP99 = float64(lr.Tel.Lateness.Quantile(0.99)) / 1e3
			ls.Overruns = lr.Tel.Overruns.Load()
		}
		s.Loops = append(s.Loops, ls)
	}
	fs, _ := r.status.Read()
	s.RunS = fs.T.Seconds()
	for f := range fs.Fingers {
		v := fs.Fingers[f].Force
		s.ForceN[f] = math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	}
	out, _ := r.statusSim.Read()
	s.SimSteps = out.Step
	for f := range out.Contact {
		s.Contact[f] = out.Contact[f].InContact
	}
	return s
}

// String formats the status as one terminal line.
func (s Status) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "t=%6.2fs", s.RunS)
	for _, l := range s.Loops {
		fmt.Fprintf(&b, " | %s %.0f Hz p99 %.0f µs", l.Name, l.RateHz, l.LatenessP99)
		if l.Overruns > 0 {
			fmt.Fprintf(&b, " (%d overruns)", l.Overruns)
		}
	}
	for f := range s.Contact {
		c := "free"
		if s.Contact[f] {
			c = "contact"
		}
		fmt.Fprintf(&b, " | %s %s %.2f N", sim.FingerName(f), c, s.ForceN[f])
	}
	return b.String()
}
