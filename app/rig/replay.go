package rig

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"time"

	"github.com/haptex/haptex/devices/replay"
	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/internal/snakejson"
	"github.com/haptex/haptex/sim"
)

// Replay is a recorded session folder made ready to run again: the
// recorded run's configuration with its recorded devices (devices/replay)
// in place of the live ones.
type Replay struct {
	Dir string
	// Config is the recorded configuration with the recorded devices and
	// no output folder; Fabric is nil: the caller loads FabricName.
	Config     Config
	FabricName string
	// Mode is how the session was run ("lockstep" or "realtime"). A
	// lockstep session is replayed in the lockstep runner; a real-time one
	// on its recorded schedule (schedule.go), since in real time the loops
	// meet differently on every run.
	Mode    string
	Devices *replay.Session
	sched   *schedule
}

// maxSessionJSON bounds a session.json read back for a replay (tens of
// kilobytes when written).
const maxSessionJSON = 16 << 20

// LoadReplay reads the session folder dir (session.json and the device
// recordings under devices/). Every device of both fingers must have been
// recorded.
func LoadReplay(dir string) (*Replay, error) {
	js, err := safefile.ReadJSON(filepath.Join(dir, "session.json"), maxSessionJSON, safefile.JSONLimits{})
	if err != nil {
		return nil, fmt.Errorf("rig: replay: %w", err)
	}
	var meta struct {
		Config  Config   `json:"config"`
		Summary *Summary `json:"summary"`
	}
	if err := snakejson.Unmarshal(js, &meta); err != nil {
		return nil, fmt.Errorf("rig: replay: %s: %w", filepath.Join(dir, "session.json"), err)
	}
	if meta.Summary == nil {
		return nil, fmt.Errorf("rig: replay: %s: the run did not end (session.json has no summary: the process was killed, or the disk was full at its end)", dir)
	}
	if meta.Config.Scripted {
		return nil, fmt.Errorf("rig: replay: %s is a scripted run: it used no device", dir)
	}
	devs, err := replay.OpenSession(dir)
	if err != nil {
		return nil, err
	}
	p := &Replay{Dir: dir, Config: meta.Config, FabricName: meta.Summary.Fabric, Mode: meta.Summary.Mode, Devices: devs}
	if p.Mode == "realtime" {
		simDt := meta.Config.SimPeriod
		if simDt <= 0 {
			simDt = 5 * time.Millisecond
		}
		if p.sched, err = readSchedule(dir, meta.Summary.Tables, simDt); err != nil {
			return nil, fmt.Errorf("rig: replay: %s ran in real time and cannot be replayed: %w", dir, err)
		}
		p.sched.stop = meta.Summary.StopTick
	}
	c := &p.Config
	c.OutDir, c.RecordDevices = "", false
	if c.Duration <= 0 {
		c.Duration = time.Duration(math.Round(meta.Summary.RunS*1e3)) * time.Millisecond
	}
	var missing []string
	for f := range sim.NumFingers {
		name := sim.FingerName(f)
		if x := devs.Exo[name+"-exo"]; x != nil {
			c.Exos[f] = x
		} else {
			missing = append(missing, name+"-exo")
		}
		if a := devs.Tactile[name+"-tactile"]; a != nil {
			c.Tactile[f] = a
		} else {
			missing = append(missing, name+"-tactile")
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return nil, fmt.Errorf("rig: replay: %s lacks the recordings of %v (record with RecordDevices)", dir, missing)
	}
	return p, nil
}

// ReplayResult is the outcome of a replay.
type ReplayResult struct {
	Dir      string           `json:"dir"`
	Mode     string           `json:"recorded_mode"`
	Summary  *Summary         `json:"summary"`
	Devices  []replay.Verdict `json:"devices"`
	BitExact bool             `json:"bit_exact"`
}

// Run replays the session and compares every command the rig sends with
// the recorded one: a lockstep session in the lockstep runner, a
// real-time one on its recorded schedule. The error is nil when the replay
// reproduced every recorded command bit for bit.
func (p *Replay) Run() (*ReplayResult, error) {
	r, err := New(p.Config)
	if err != nil {
		return nil, err
	}
	var sum *Summary
	if p.sched != nil {
		sum, err = r.runSchedule(p.sched)
	} else {
		sum, err = r.RunLockstep()
	}
	if err != nil {
		return nil, err
	}
	res := &ReplayResult{Dir: p.Dir, Mode: p.Mode, Summary: sum, Devices: p.Devices.Verdicts()}
	if err := p.Devices.Verify(); err != nil {
		return res, err
	}
	res.BitExact = true
	return res, nil
}

// Method says in one line how the session is replayed.
func (p *Replay) Method() string {
	if p.sched != nil {
		return fmt.Sprintf("a real-time session: every tick replayed at its recorded time with the inputs it took (%d haptics ticks, %d cloth steps, %d tactile frames, from the session's tables), so that every command can be checked bit for bit",
			len(p.sched.haptics), len(p.sched.sim), len(p.sched.tactile))
	}
	return "a lockstep session: replayed in the lockstep runner, every command checked bit for bit"
}
