package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/haptex/haptex/calib/psych"
)

// progress reports how far a run of trials has come: on a terminal one
// line rewritten in place (at most statusWidth columns, cleared by done),
// elsewhere a line every ten trials and at the end.
type progress struct {
	w     io.Writer
	tty   bool
	label string
	max   int // the most trials the procedure can take; 0: not known
	start time.Time
	first int // the trials done at this process's first report (-1 before it)
	every int // without a terminal, a line every this many trials (0: 10)
	shown bool
	now   func() time.Time
}

func newProgress(w io.Writer, label string, maxTrials int) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && isTerminal(f), label: label, max: maxTrials, first: -1, now: time.Now}
}

// update reports that completed trials are done.
func (p *progress) update(completed int) {
	now := p.now()
	if p.first < 0 {
		// Time is counted from this process's first report: the first
		// trial also built the rig.
		p.first, p.start = completed, now
	}
	line := p.line(completed, now)
	every := p.every
	if every <= 0 {
		every = 10
	}
	switch {
	case p.tty:
		fmt.Fprint(p.w, "\r\033[K"+line)
		p.shown = true
	case completed%every == 0 || completed == p.max:
		fmt.Fprintln(p.w, line)
	}
}

// line formats the state after completed trials: the count, the most
// there can be, and the time left at this run's rate so far.
func (p *progress) line(completed int, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: trial %d", p.label, completed)
	if p.max > 0 {
		fmt.Fprintf(&b, " of max %d", p.max)
	}
	if n := completed - p.first; n > 0 && p.max > completed {
		per := now.Sub(p.start).Seconds() / float64(n)
		if n == 1 {
			fmt.Fprintf(&b, ", %.1f s/trial", per)
		} else {
			left := time.Duration(math.Round(per*float64(p.max-completed))) * time.Second
			fmt.Fprintf(&b, ", %.1f s/trial, <= %s left", per, left)
		}
	}
	r := []rune(b.String())
	if len(r) > statusWidth {
		r = r[:statusWidth]
	}
	return string(r)
}

// done clears the line on a terminal.
func (p *progress) done() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// clearing writes to w after clearing p's line, so that what a run
// prints on the terminal never lands on the progress line.
type clearing struct {
	w io.Writer
	p *progress
}

func (c clearing) Write(b []byte) (int, error) {
	c.p.done()
	return c.w.Write(b)
}

// writerFunc is an io.Writer made of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// maxTrials is the most trials a procedure can run (0 when only its
// reversals stop it).
func maxTrials(c psych.Config) int {
	switch c.Kind {
	case psych.KindStaircase:
		if c.Staircase != nil {
			return c.Staircase.MaxTrials
		}
	case psych.KindQuest:
		if c.Quest != nil {
			return c.Quest.MaxTrials
		}
	case psych.KindPsi:
		if c.Psi != nil {
			return c.Psi.MaxTrials
		}
	case psych.KindConstant:
		if c.Constant != nil {
			return c.Constant.Repeats * len(c.Constant.Levels)
		}
	case psych.KindInterleaved:
		if c.Interleaved != nil {
			total := 0
			for _, tr := range c.Interleaved.Tracks {
				n := maxTrials(tr)
				if n == 0 {
					return 0
				}
				total += n
			}
			return total
		}
	}
	return 0
}
