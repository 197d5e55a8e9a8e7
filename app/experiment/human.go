package experiment

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/haptex/haptex/calib/psych"
)

// terminal is a person's side of a run: prompts on out, answers on in.
//
// When in is a terminal, a goroutine reads its lines as they are typed and
// stamps each with the time it arrived, so that what the person typed
// before a question was asked (a key pressed during an interval, an early
// Enter) is discarded instead of taken as the answer: at each question the
// terminal's unread input is flushed and every line that arrived before it
// is dropped. Input that is not a terminal (a pipe, a file) is read line by
// line as it is asked for, so a scripted session answers in order.
type terminal struct {
	out   io.Writer
	tty   *os.File // in, when it is a terminal
	lines chan termLine
	r     *bufio.Reader // in, when it is not a terminal
}

type termLine struct {
	text string
	at   time.Time
	err  error
}

func newTerminal(in io.Reader, out io.Writer) *terminal {
	t := &terminal{out: out}
	if f, ok := in.(*os.File); ok && isTerminal(f) {
		t.tty = f
		t.lines = make(chan termLine, 64)
		go t.read(bufio.NewReader(f))
		return t
	}
	t.r = bufio.NewReader(in)
	return t
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// read delivers the terminal's lines with their arrival times until it
// fails (the terminal closed).
func (t *terminal) read(r *bufio.Reader) {
	for {
		s, err := r.ReadString('\n')
		t.lines <- termLine{text: s, at: time.Now(), err: err}
		if err != nil {
			return
		}
	}
}

// readLine returns the next line typed after open (a terminal), or the
// next line (other input).
func (t *terminal) readLine(ctx context.Context, open time.Time) (string, error) {
	if t.tty == nil {
		s, err := t.r.ReadString('\n')
		if err != nil && s == "" {
			return "", err
		}
		return s, nil
	}
	for {
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case l := <-t.lines:
			if l.err != nil && l.text == "" {
				return "", l.err
			}
			if l.at.Before(open) {
				continue // typed before the question: not an answer
			}
			return l.text, nil
		}
	}
}

// openWindow starts a question: what the terminal holds unread is
// flushed, so that only what is typed from now on counts.
func (t *terminal) openWindow() time.Time {
	if t.tty != nil {
		// Best effort: a terminal that refuses keeps its input, and the
		// arrival times still drop what came before.
		_ = unix.IoctlSetInt(int(t.tty.Fd()), unix.TCFLSH, unix.TCIFLUSH)
	}
	return time.Now()
}

// start waits for the subject to be ready (a terminal only).
func (t *terminal) start(ctx context.Context) error {
	if t.tty == nil {
		return nil
	}
	open := t.openWindow()
	fmt.Fprint(t.out, "Press Enter to start. ")
	_, err := t.readLine(ctx, open)
	fmt.Fprintln(t.out)
	return err
}

// announce shows which trial comes next: "trial 3 of 60", or "of at most
// 60" when the procedure may stop earlier.
func (t *terminal) announce(n int, proc psych.Config) {
	switch max, exact := psych.MaxTrials(proc); {
	case max == 0:
		fmt.Fprintf(t.out, "trial %d\n", n)
	case exact:
		fmt.Fprintf(t.out, "trial %d of %d\n", n, max)
	default:
		fmt.Fprintf(t.out, "trial %d of at most %d\n", n, max)
	}
}

// ask puts the question and returns the answer: the response (1 correct
// or yes), the interval chosen (-1 for yes/no) and the response time [s],
// from the question.
func (t *terminal) ask(ctx context.Context, question string, intervals, test int) (psych.Response, int, float64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return 0, 0, 0, err
		}
		// The window opens before the question shows: an answer typed as
		// soon as it shows is not flushed with what came before (a lost
		// answer, and a run waiting for one).
		open := t.openWindow()
		if intervals == 2 {
			fmt.Fprintf(t.out, "%s [1/2] ", question)
		} else {
			fmt.Fprintf(t.out, "%s [y/n] ", question)
		}
		line, err := t.readLine(ctx, open)
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return 0, 0, 0, err
			}
			return 0, 0, 0, fmt.Errorf("reading the response: %w", err)
		}
		rt := time.Since(open).Seconds()
		a := strings.ToLower(strings.TrimSpace(line))
		switch {
		case intervals == 2 && (a == "1" || a == "2"):
			chosen := int(a[0] - '1')
			r := psych.Incorrect
			if chosen == test {
				r = psych.Correct
			}
			return r, chosen, rt, nil
		case intervals == 1 && (a == "y" || a == "n"):
			r := psych.No
			if a == "y" {
				r = psych.Yes
			}
			return r, -1, rt, nil
		}
		fmt.Fprintln(t.out, "please answer 1 or 2 (or y or n for a yes/no task)")
	}
}
