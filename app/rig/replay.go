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
	// Mode is how the session was run ("lockstep" or "realtime"). Only a
	// lockstep recording can be reproduced bit for bit: in real time the
	// loops interleave differently on every run.
	Mode    string
	Devices *replay.Session
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
		Config  Config  `json:"config"`
		Summary Summary `json:"summary"`
	}
	if err := snakejson.Unmarshal(js, &meta); err != nil {
		return nil, fmt.Errorf("rig: replay: %s: %w", filepath.Join(dir, "session.json"), err)
	}
	if meta.Config.Scripted {
		return nil, fmt.Errorf("rig: replay: %s is a scripted run: it used no device", dir)
	}
	devs, err := replay.OpenSession(dir)
	if err != nil {
		return nil, err
	}
	p := &Replay{Dir: dir, Config: meta.Config, FabricName: meta.Summary.Fabric, Mode: meta.Summary.Mode, Devices: devs}
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

// Run replays the session in the lockstep runner and compares every
// command the rig sends with the recorded one. The error is nil when the
// replay reproduced every recorded command bit for bit.
func (p *Replay) Run() (*ReplayResult, error) {
	r, err := New(p.Config)
	if err != nil {
		return nil, err
	}
	sum, err := r.RunLockstep()
	if err != nil {
		return nil, err
	}
	res := &ReplayResult{Dir: p.Dir, Mode: p.Mode, Summary: sum, Devices: p.Devices.Verdicts()}
	if err := p.Devices.Verify(); err != nil {
		if p.Mode != "lockstep" {
			err = fmt.Errorf("%w\n(the session ran in %s: only a lockstep recording replays bit for bit)", err, p.Mode)
		}
		return res, err
	}
	res.BitExact = true
	return res, nil
}
