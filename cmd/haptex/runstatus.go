package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/sim"
)

// startStatusLine rewrites one terminal line on w at most 4 times a
// second with the run's state (statusText); the function it returns
// clears the line and returns once it is cleared.
func startStatusLine(w io.Writer, r *rig.Rig) (stop func()) {
	done, cleared := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(cleared)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-t.C:
				fmt.Fprint(w, "\r\033[K"+statusText(r.Status()))
			}
		}
	}()
	return func() {
		close(done)
		<-cleared
	}
}

// statusWidth is the most columns the status line takes.
const statusWidth = 79

// statusText is the run's live state in at most statusWidth columns:
// run time, each finger's force (a * while it touches the cloth), the
// haptics loop's rate, p99 lateness and overruns, the sim's rate.
func statusText(s rig.Status) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%6.1f s", s.RunS)
	for f := range s.Contact {
		mark := " "
		if s.Contact[f] {
			mark = "*"
		}
		fmt.Fprintf(&b, "  %s %.2f N%s", sim.FingerName(f), s.ForceN[f], mark)
	}
	for _, l := range s.Loops {
		switch l.Name {
		case "haptics":
			fmt.Fprintf(&b, "  haptics %4.0f Hz p99 %4.0f µs", l.RateHz, l.LatenessP99)
			if l.Overruns > 0 {
				fmt.Fprintf(&b, " %d overruns", l.Overruns)
			}
		case "sim":
			fmt.Fprintf(&b, "  sim %3.0f Hz", l.RateHz)
		}
	}
	line := []rune(b.String())
	if len(line) > statusWidth {
		line = line[:statusWidth]
	}
	return string(line)
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
