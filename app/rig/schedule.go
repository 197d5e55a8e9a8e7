package rig

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/internal/sessionlog"
	"github.com/haptex/haptex/sim"
)

// A real-time run's loops meet in an order no two runs share: the cloth's
// step takes whatever finger state the haptics loop last published, each
// haptics tick the cloth's newest output, each tactile frame both. The
// session's tables record, for every tick, its time and the sequence
// number of each input it took (haptics.csv: sim_seq; sim.csv:
// fingers_seq; tactile.csv: fingers_seq and sim_seq; 0 before the first).
// A replay of such a run plays every tick at its recorded time with those
// very inputs (runSchedule), so that it computes what the run computed,
// bit for bit, and the recorded devices check it.

// schedTick is one recorded tick: its time and the sequence numbers of
// the finger state and the cloth output it took (one of them unused for
// the haptics and sim loops).
type schedTick struct {
	t            time.Duration
	fingers, sim uint64
}

// schedule is a real-time run's ticks, loop by loop, in order.
type schedule struct {
	haptics, sim, tactile []schedTick
	// stop is the haptics tick at which the run told its servo to stop
	// (Summary.StopTick); nil when it did not.
	stop *uint64
}

// errNoSchedule marks a session recorded before the tables held their
// loops' inputs.
var errNoSchedule = errors.New("the session's tables do not record which inputs each tick took (recorded before this version of haptex)")

// maxTable bounds a table read back for a replay: an hour's haptics.csv
// is about 2 GB.
const maxTable = 16 << 30

// readSchedule reads the schedule of the real-time session in dir from its
// tables; tables is what session.json says was written, simDt the
// cloth's step.
func readSchedule(dir string, tables []sessionlog.TableStats, simDt time.Duration) (*schedule, error) {
	for _, ts := range tables {
		if ts.Dropped > 0 {
			return nil, fmt.Errorf("%s dropped %d rows during the run (the disk fell behind): the order of its ticks is lost", ts.File, ts.Dropped)
		}
		if ts.Lost > 0 {
			return nil, fmt.Errorf("%s lost its last %d rows (%s): the run's end is not on disk", ts.File, ts.Lost, ts.Error)
		}
	}
	var s schedule
	var err error
	if s.haptics, err = readTicks(filepath.Join(dir, "haptics.csv"), "", "sim_seq", 0); err != nil {
		return nil, err
	}
	// A sim.csv row's t_s is the time after its step.
	if s.sim, err = readTicks(filepath.Join(dir, "sim.csv"), "fingers_seq", "", simDt); err != nil {
		return nil, err
	}
	if s.tactile, err = readTicks(filepath.Join(dir, "tactile.csv"), "fingers_seq", "sim_seq", 0); err != nil {
		return nil, err
	}
	return &s, nil
}

// readTicks reads the t_s column (less shift) and the sequence columns
// fingersCol and simCol ("" for none) of a session table.
func readTicks(path, fingersCol, simCol string, shift time.Duration) ([]schedTick, error) {
	r, err := safefile.Open(path, maxTable)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("%s: no header", path)
	}
	col := map[string]int{}
	for i, c := range strings.Split(sc.Text(), ",") {
		col[c] = i
	}
	idx := func(name string) (int, bool) {
		if name == "" {
			return -1, true
		}
		i, ok := col[name]
		return i, ok
	}
	ti, okT := col["t_s"]
	fi, okF := idx(fingersCol)
	si, okS := idx(simCol)
	if !okT || !okF || !okS {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), errNoSchedule)
	}
	seq := func(f []string, i int) (uint64, error) {
		if i < 0 {
			return 0, nil
		}
		return strconv.ParseUint(f[i], 10, 64)
	}
	var out []schedTick
	line := 1
	for sc.Scan() {
		line++
		f := strings.Split(sc.Text(), ",")
		bad := func(what string) error { return fmt.Errorf("%s:%d: %s", path, line, what) }
		if len(f) <= max(ti, fi, si) {
			return nil, bad("a row cut short")
		}
		ts, err := strconv.ParseFloat(f[ti], 64)
		if err != nil || math.IsNaN(ts) || math.Abs(ts) > 1e6 {
			return nil, bad(fmt.Sprintf("t_s %q", f[ti]))
		}
		k := schedTick{t: time.Duration(math.Round(ts*1e9)) - shift}
		if k.fingers, err = seq(f, fi); err != nil {
			return nil, bad(fmt.Sprintf("%s %q", fingersCol, f[fi]))
		}
		if k.sim, err = seq(f, si); err != nil {
			return nil, bad(fmt.Sprintf("%s %q", simCol, f[si]))
		}
		if n := len(out); n > 0 && k.t <= out[n-1].t {
			return nil, bad(fmt.Sprintf("time %v not after the row before (%v)", k.t, out[n-1].t))
		}
		out = append(out, k)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// The finger states and cloth outputs a schedule replay keeps, by sequence
// number, for the ticks that took them late: a cloth step waits for at
// most a few milliseconds' worth of haptics ticks, a tactile frame for
// one cloth step.
const (
	keepFingers = 1 << 14
	keepSim     = 1 << 10
)

// runSchedule plays the recorded schedule on r: every tick at its time,
// with the inputs it took. Each loop's ticks keep their order; between
// loops, a tick runs once what it took exists.
func (r *Rig) runSchedule(s *schedule) (*Summary, error) {
	if r.ran {
		return nil, errors.New("rig: already ran")
	}
	r.ran = true
	if r.session != nil {
		r.session.Start()
	}
	start := time.Now()
	fingers := make([]sim.FingerState, keepFingers)
	outs := make([]sim.Output, keepSim)
	var hi, si, ti int // next tick of each loop
	// Sequence numbers count publishes: tick h published fingers h+1,
	// step k published output k+1; 0 is the initial value.
	fingerAt := func(seq uint64) (*sim.FingerState, error) {
		if seq > uint64(hi) || uint64(hi)-seq >= keepFingers {
			return nil, fmt.Errorf("a tick took the finger state of haptics tick %d while %d had run", seq, hi)
		}
		return &fingers[seq%keepFingers], nil
	}
	simAt := func(seq uint64) (*sim.Output, error) {
		if seq > uint64(si) || uint64(si)-seq >= keepSim {
			return nil, fmt.Errorf("a tick took the output of cloth step %d while %d had run", seq, si)
		}
		return &outs[seq%keepSim], nil
	}
	publishFingers := func(seq uint64) error {
		f, err := fingerAt(seq)
		if err != nil {
			return err
		}
		*r.fingers.Slot() = *f
		r.fingers.Publish()
		return nil
	}
	publishSim := func(seq uint64) error {
		o, err := simAt(seq)
		if err != nil {
			return err
		}
		*r.simOut.Slot() = *o
		r.simOut.Publish()
		return nil
	}
	// stepSim runs the cloth's steps up to output seq, each on the finger
	// state it took; it reports false when a step needs a haptics tick
	// not yet run.
	stepSim := func(seq uint64) (bool, error) {
		for uint64(si) < seq {
			if si >= len(s.sim) {
				return false, fmt.Errorf("a tick took the output of cloth step %d; %d steps are recorded", seq, len(s.sim))
			}
			k := s.sim[si]
			if k.fingers > uint64(hi) {
				return false, nil
			}
			if err := publishFingers(k.fingers); err != nil {
				return false, err
			}
			r.simLoop.tick(k.t)
			si++
			o, _ := r.statusSim.Read()
			outs[si%keepSim] = *o
		}
		return true, nil
	}
	fail := func(err error) (*Summary, error) {
		sum := r.summary("replay", 0, time.Since(start))
		r.finish(sum)
		return nil, fmt.Errorf("rig: replay: the recorded schedule is inconsistent: %w", err)
	}
	var last time.Duration
	for hi < len(s.haptics) || ti < len(s.tactile) {
		for ti < len(s.tactile) && s.tactile[ti].fingers <= uint64(hi) {
			k := s.tactile[ti]
			ok, err := stepSim(k.sim)
			if err != nil {
				return fail(err)
			}
			if !ok {
				break
			}
			if err := publishFingers(k.fingers); err != nil {
				return fail(err)
			}
			if err := publishSim(k.sim); err != nil {
				return fail(err)
			}
			r.tactileLoop.tick(k.t)
			last = max(last, k.t)
			ti++
		}
		if hi == len(s.haptics) {
			if ti < len(s.tactile) {
				return fail(fmt.Errorf("tactile frame %d took inputs that were never computed", ti+1))
			}
			break
		}
		k := s.haptics[hi]
		ok, err := stepSim(k.sim)
		if err == nil && !ok {
			err = fmt.Errorf("haptics tick %d took cloth step %d, which needs a later haptics tick", hi+1, k.sim)
		}
		if err == nil {
			err = publishSim(k.sim)
		}
		if err != nil {
			return fail(err)
		}
		if s.stop != nil && *s.stop == uint64(hi) {
			r.haptics.end.requested.Store(true)
		}
		r.hapticsLoop.tick(k.t)
		hi++
		f, _ := r.status.Read()
		fingers[uint64(hi)%keepFingers] = *f
		last = max(last, k.t)
	}
	// The steps no tick took, as the run made them.
	for si < len(s.sim) && s.sim[si].fingers <= uint64(hi) {
		if _, err := stepSim(uint64(si) + 1); err != nil {
			return fail(err)
		}
	}
	if r.haptics.end.stopping {
		r.tactile.silence()
	}
	sum := r.summary("replay", last, time.Since(start))
	return sum, r.finish(sum)
}
