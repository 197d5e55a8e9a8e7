// Package replay plays recorded devices back (package record's files) as
// devices.Exoskeleton and devices.TactileArray, driven by explicit time:
// both implement devices.Clocked, and a Read (or Status) returns the newest
// recorded sample whose run time is not after the last Advance, exactly as
// it was recorded (every bit, errors included). Every Write, Enable and
// WriteFrame is compared bit for bit with the recorded one in the same
// position; Verify reports the first difference.
//
// It never reads a clock and never touches hardware: the same recording
// replayed with the same times gives the same calls, every time.
package replay

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/record"
)

// Verdict compares what the replayed loop did with the recording.
type Verdict struct {
	Name        string `json:"name"`
	Reads       int    `json:"reads"`        // Read or Status calls served
	Skipped     int    `json:"skipped"`      // recorded samples passed over (the replay read less often)
	Recorded    int    `json:"recorded"`     // recorded Write/WriteFrame calls
	Replayed    int    `json:"replayed"`     // Write/WriteFrame calls made during the replay
	Matched     int    `json:"matched"`      // of those, identical to the recorded one, bit for bit
	Mismatched  int    `json:"mismatched"`   // different from the recorded one in the same position
	Extra       int    `json:"extra"`        // beyond the end of the recording
	EnableDiffs int    `json:"enable_diffs"` // Enable calls that differ from the recorded ones
	First       string `json:"first_difference,omitempty"`
}

// Err returns nil when every recorded command was replayed identically and
// nothing else was written.
func (v *Verdict) Err() error {
	if v.Mismatched == 0 && v.Extra == 0 && v.EnableDiffs == 0 && v.Replayed == v.Recorded {
		return nil
	}
	first := v.First
	if first == "" {
		first = "the replay ended before the recording did"
	}
	return fmt.Errorf("replay: %s: %d of %d recorded commands replayed, %d identical, %d different, %d extra, %d enable differences; first: %s",
		v.Name, v.Replayed, v.Recorded, v.Matched, v.Mismatched, v.Extra, v.EnableDiffs, first)
}

func (v *Verdict) note(format string, a ...any) {
	if v.First == "" {
		v.First = fmt.Sprintf(format, a...)
	}
}

func sameBits(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// Exo replays a recorded exoskeleton.
type Exo struct {
	spec    devices.ExoSpec
	kin     *exo.Model
	base    exo.Pose
	reads   []record.ReadEvent
	writes  []record.WriteEvent
	enables []record.EnableEvent
	t       time.Duration
	ri      int
	last    *record.ReadEvent
	wi, ei  int
	v       Verdict
}

var (
	_ devices.Exoskeleton = (*Exo)(nil)
	_ devices.Clocked     = (*Exo)(nil)
	_ devices.Kinematic   = (*Exo)(nil)
)

// OpenExo loads the recording of an exoskeleton.
func OpenExo(path string) (*Exo, error) {
	x := &Exo{}
	var spec, kin []byte
	meta, err := record.ReadFile(path, func(ev record.Event) error {
		switch ev.Kind {
		case record.KindSpec:
			spec = append(spec[:0], ev.Payload...)
		case record.KindKinematics:
			kin = append(kin[:0], ev.Payload...)
		case record.KindRead:
			var e record.ReadEvent
			if err := e.Parse(ev.Payload); err != nil {
				return err
			}
			x.reads = append(x.reads, e)
		case record.KindWrite:
			var e record.WriteEvent
			if err := e.Parse(ev.Payload); err != nil {
				return err
			}
			x.writes = append(x.writes, e)
		case record.KindEnable:
			var e record.EnableEvent
			if err := e.Parse(ev.Payload); err != nil {
				return err
			}
			x.enables = append(x.enables, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("replay: %s: %w", path, err)
	}
	if meta.Kind != "exoskeleton" {
		return nil, fmt.Errorf("replay: %s records a %s, not an exoskeleton", path, meta.Kind)
	}
	if spec == nil {
		spec = meta.Spec
	}
	if len(spec) > 0 {
		if err := json.Unmarshal(spec, &x.spec); err != nil {
			return nil, fmt.Errorf("replay: %s: spec: %w", path, err)
		}
	}
	if len(kin) > 0 {
		var k record.Kinematics
		if err := json.Unmarshal(kin, &k); err != nil {
			return nil, fmt.Errorf("replay: %s: kinematics: %w", path, err)
		}
		if x.kin, err = exo.New(k.Params); err != nil {
			return nil, fmt.Errorf("replay: %s: %w", path, err)
		}
		x.base = k.Base
	}
	x.spec.Transport = devices.TransportReplay
	x.v = Verdict{Name: meta.Name, Recorded: len(x.writes)}
	return x, nil
}

// Kinematics returns the recorded kinematic model, or nil when the
// recording holds none.
func (x *Exo) Kinematics() *exo.Model { return x.kin }

// Base returns the recorded base pose.
func (x *Exo) Base() exo.Pose { return x.base }

// Spec returns the recorded device's capabilities (transport "replay").
func (x *Exo) Spec() devices.ExoSpec { return x.spec }

// Advance sets the run time.
func (x *Exo) Advance(t time.Duration) { x.t = t }

// Read returns the newest recorded sample at or before the run time, with
// the error recorded with it. When no new sample is due it returns the
// previous one marked stale, with devices.ErrTimeout.
func (x *Exo) Read(dst *devices.ExoState) error {
	due := x.ri
	for due < len(x.reads) && x.reads[due].T <= x.t {
		due++
	}
	if due == x.ri {
		if x.last == nil {
			*dst = devices.ExoState{Stale: true}
		} else {
			*dst = x.last.State
			dst.Stale = true
		}
		return devices.ErrTimeout
	}
	x.v.Skipped += due - x.ri - 1
	x.v.Reads++
	x.last = &x.reads[due-1]
	x.ri = due
	*dst = x.last.State
	return x.last.Err.Error(x.last.Msg)
}

// Write compares cmd with the recorded command in the same position and
// returns the error recorded for it.
func (x *Exo) Write(cmd *devices.ExoCommand) error {
	x.v.Replayed++
	if x.wi >= len(x.writes) {
		x.v.Extra++
		x.v.note("write %d at run time %v is beyond the %d recorded", x.wi+1, x.t, len(x.writes))
		return nil
	}
	r := &x.writes[x.wi]
	x.wi++
	if r.Cmd.Seq == cmd.Seq && sameBits(r.Cmd.Torque[:], cmd.Torque[:]) {
		x.v.Matched++
	} else {
		x.v.Mismatched++
		x.v.note("write %d at run time %v (recorded at %v): seq %d torque %v, recorded seq %d torque %v",
			x.wi, x.t, r.T, cmd.Seq, cmd.Torque, r.Cmd.Seq, r.Cmd.Torque)
	}
	return r.Err.Error(r.Msg)
}

// Enable compares with the recorded Enable in the same position.
func (x *Exo) Enable(on bool) error {
	if x.ei >= len(x.enables) {
		x.v.EnableDiffs++
		x.v.note("Enable(%v) at run time %v is beyond the %d recorded", on, x.t, len(x.enables))
		return nil
	}
	r := &x.enables[x.ei]
	x.ei++
	if r.On != on {
		x.v.EnableDiffs++
		x.v.note("Enable(%v) at run time %v, recorded Enable(%v)", on, x.t, r.On)
	}
	return r.Err.Error(r.Msg)
}

// Close does nothing.
func (x *Exo) Close() error { return nil }

// Verdict returns the comparison so far.
func (x *Exo) Verdict() Verdict { return x.v }

// Tactile replays a recorded tactile array.
type Tactile struct {
	spec     devices.TactileSpec
	frames   []record.FrameEvent
	statuses []record.StatusEvent
	// delivered are the recorded measurements of the pins, di the first
	// after the run time.
	delivered []record.DeliveredEvent
	t         time.Duration
	si, fi    int
	di        int
	last      *record.StatusEvent
	v         Verdict
}

var (
	_ devices.TactileArray   = (*Tactile)(nil)
	_ devices.StatusReader   = (*Tactile)(nil)
	_ devices.DeliveryReader = (*Tactile)(nil)
	_ devices.Clocked        = (*Tactile)(nil)
)

// OpenTactile loads the recording of a tactile array.
func OpenTactile(path string) (*Tactile, error) {
	a := &Tactile{}
	var spec []byte
	meta, err := record.ReadFile(path, func(ev record.Event) error {
		switch ev.Kind {
		case record.KindSpec:
			spec = append(spec[:0], ev.Payload...)
		case record.KindFrame:
			var e record.FrameEvent
			if err := e.Parse(ev.Payload); err != nil {
				return err
			}
			a.frames = append(a.frames, e)
		case record.KindStatus:
			var e record.StatusEvent
			if err := e.Parse(ev.Payload); err != nil {
				return err
			}
			a.statuses = append(a.statuses, e)
		case record.KindDelivered:
			var e record.DeliveredEvent
			if err := e.Parse(ev.Payload); err != nil {
				return err
			}
			a.delivered = append(a.delivered, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("replay: %s: %w", path, err)
	}
	if meta.Kind != "tactile" {
		return nil, fmt.Errorf("replay: %s records a %s, not a tactile array", path, meta.Kind)
	}
	if spec == nil {
		spec = meta.Spec
	}
	if len(spec) > 0 {
		if err := json.Unmarshal(spec, &a.spec); err != nil {
			return nil, fmt.Errorf("replay: %s: spec: %w", path, err)
		}
	}
	a.spec.Transport = devices.TransportReplay
	a.v = Verdict{Name: meta.Name, Recorded: len(a.frames)}
	return a, nil
}

// Spec returns the recorded device's capabilities.
func (a *Tactile) Spec() devices.TactileSpec { return a.spec }

// Advance sets the run time.
func (a *Tactile) Advance(t time.Duration) { a.t = t }

// WriteFrame compares f with the recorded frame in the same position.
func (a *Tactile) WriteFrame(f *devices.TactileFrame) error {
	a.v.Replayed++
	if a.fi >= len(a.frames) {
		a.v.Extra++
		a.v.note("frame %d at run time %v is beyond the %d recorded", a.fi+1, a.t, len(a.frames))
		return nil
	}
	r := &a.frames[a.fi]
	a.fi++
	if r.Frame.Seq == f.Seq && sameBits(r.Frame.A40Um[:], f.A40Um[:]) && sameBits(r.Frame.A320Um[:], f.A320Um[:]) {
		a.v.Matched++
	} else {
		a.v.Mismatched++
		a.v.note("frame %d at run time %v (recorded at %v) differs (seq %d, recorded %d)", a.fi, a.t, r.T, f.Seq, r.Frame.Seq)
	}
	return r.Err.Error(r.Msg)
}

// Status returns the newest recorded status at or before the run time.
func (a *Tactile) Status(dst *devices.TactileStatus) error {
	due := a.si
	for due < len(a.statuses) && a.statuses[due].T <= a.t {
		due++
	}
	if due == a.si {
		if a.last == nil {
			*dst = devices.TactileStatus{Stale: true}
		} else {
			*dst = a.last.Status
			dst.Stale = true
		}
		return devices.ErrTimeout
	}
	a.v.Skipped += due - a.si - 1
	a.v.Reads++
	a.last = &a.statuses[due-1]
	a.si = due
	*dst = a.last.Status
	return a.last.Err.Error(a.last.Msg)
}

// Delivered returns the newest recorded measurement of the pins at or
// before the run time; false when there is none (nothing recorded yet, or
// the array had none then).
func (a *Tactile) Delivered(dst *devices.TactileFrame) bool {
	for a.di < len(a.delivered) && a.delivered[a.di].T <= a.t {
		a.di++
	}
	if a.di == 0 || !a.delivered[a.di-1].OK {
		return false
	}
	*dst = a.delivered[a.di-1].Frame
	return true
}

// Close does nothing.
func (a *Tactile) Close() error { return nil }

// Verdict returns the comparison so far.
func (a *Tactile) Verdict() Verdict { return a.v }

// Session is the devices of a recorded session folder.
type Session struct {
	Exo     map[string]*Exo     // by recording name, e.g. "thumb-exo"
	Tactile map[string]*Tactile // e.g. "thumb-tactile"
}

// OpenSession loads every recording in dir/devices.
func OpenSession(dir string) (*Session, error) {
	paths, err := filepath.Glob(filepath.Join(record.Dir(dir), "*.hxr"))
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	if len(paths) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		return nil, fmt.Errorf("replay: %s holds no device recordings (%s/*.hxr)", dir, record.Dir(dir))
	}
	s := &Session{Exo: map[string]*Exo{}, Tactile: map[string]*Tactile{}}
	for _, p := range paths {
		meta, err := record.ReadFile(p, func(record.Event) error { return errStop })
		if err != nil && !errors.Is(err, errStop) {
			return nil, fmt.Errorf("replay: %s: %w", p, err)
		}
		switch meta.Kind {
		case "exoskeleton":
			x, err := OpenExo(p)
			if err != nil {
				return nil, err
			}
			s.Exo[meta.Name] = x
		case "tactile":
			a, err := OpenTactile(p)
			if err != nil {
				return nil, err
			}
			s.Tactile[meta.Name] = a
		default:
			return nil, fmt.Errorf("replay: %s: unknown device kind %q", p, meta.Kind)
		}
	}
	return s, nil
}

var errStop = errors.New("stop")

// Verdicts returns every device's comparison, sorted by name.
func (s *Session) Verdicts() []Verdict {
	var out []Verdict
	for _, x := range s.Exo {
		out = append(out, x.Verdict())
	}
	for _, a := range s.Tactile {
		out = append(out, a.Verdict())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Verify returns nil when every device replayed its recorded commands bit
// for bit, and otherwise an error naming each difference.
func (s *Session) Verify() error {
	var msgs []string
	for _, v := range s.Verdicts() {
		if err := v.Err(); err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "\n"))
	}
	return nil
}
