package rig

import (
	"time"

	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/latency"
	"github.com/haptex/haptex/internal/sessionlog"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// LoopSummary is one loop's timing over a run.
type LoopSummary struct {
	Name        string              `json:"name"`
	PeriodMs    float64             `json:"period_ms"`
	Ticks       uint64              `json:"ticks"`
	RateHz      float64             `json:"rate_hz"`
	RealTime    bool                `json:"rt"`
	LatenessUs  latency.Percentiles `json:"lateness_us"`
	ComputeUs   latency.Percentiles `json:"compute_us"`
	Overruns    uint64              `json:"overruns"`
	LateOver1ms uint64              `json:"late_over_1ms"`
	// Standby reports whether the loop had a standby thread (see
	// rt.Config.Standby), and Takeovers how many ticks it ran.
	Standby   bool   `json:"standby"`
	Takeovers uint64 `json:"takeovers"`
	// OffStandby reports that the loop's thread ran off the standby
	// thread's core, where the runtime's monitor ran (the cloth on the
	// simulated twins; rt.Config.OffStandby).
	OffStandby bool `json:"off_standby,omitempty"`
	// LateTicks lists the first rt.MaxLateTicks of the LateOver1ms ticks.
	LateTicks []LateTick `json:"late_ticks,omitempty"`
}

// LateTick is a tick that woke more than 1 ms after its deadline.
type LateTick struct {
	TS         float64 `json:"t_s"` // its deadline on the run's clock [s], as in the CSV tables
	LatenessUs float64 `json:"lateness_us"`
	Standby    bool    `json:"standby"` // the loop's standby thread ran it
}

// ClockOrigin says when a real-time run's clock read zero (t_s = 0 in the
// tables), so that its records can be laid beside another program's.
type ClockOrigin struct {
	// UTC is the time of day, as exact as the machine's clock is set.
	UTC time.Time `json:"utc"`
	// MonotonicNs is the machine's CLOCK_MONOTONIC reading [ns] (Linux;
	// elsewhere it counts from the process's start): what clock_gettime
	// gives any other program on the machine, and what scripts/wakeups.c
	// logs.
	MonotonicNs int64 `json:"monotonic_ns"`
}

// FingerSummary is what one finger felt over a run: the force its
// fingertip sensor measured, beside the force the cloth asked the device
// to render (the names as in an experiment's trials.csv).
type FingerSummary struct {
	Finger        string  `json:"finger"`
	ContactS      float64 `json:"contact_s"`        // time in contact with the cloth [s]
	PeakForceN    float64 `json:"peak_force_n"`     // largest force magnitude the fingertip sensor measured [N]
	MeanForceN    float64 `json:"mean_force_n"`     // its mean magnitude while in contact [N]
	PeakForceDesN float64 `json:"peak_force_des_n"` // largest force magnitude the cloth asked for [N]
	MeanForceDesN float64 `json:"mean_force_des_n"` // its mean magnitude while in contact [N]
	// TactileNotWritten is how many of the tactile loop's frames (one a
	// tick) the finger's pin array refused or never got: the write failed,
	// the array gone, reconnecting or refusing the frame.
	TactileNotWritten uint64 `json:"tactile_not_written"`
	// TactileClipped and TactileSilenced count the frames whose array's
	// newest status, as the frame was written, said it clipped at its
	// amplitude limits (below those it announces: the rig renders within
	// them), or had silenced itself or had a fault (arrays that report a
	// status).
	TactileClipped  uint64 `json:"tactile_clipped"`
	TactileSilenced uint64 `json:"tactile_silenced"`
	// TactileDelivered is what the finger's array measured its pins
	// delivering against what was sent (nil: it measures nothing).
	TactileDelivered *DeliverySummary `json:"tactile_delivered,omitempty"`
}

// Summary is the outcome of a run.
type Summary struct {
	Mode    string          `json:"mode"` // realtime or lockstep
	Fabric  string          `json:"fabric"`
	RunS    float64         `json:"run_s"`
	WallS   float64         `json:"wall_s"`
	Loops   []LoopSummary   `json:"loops"`
	Fingers []FingerSummary `json:"fingers"`
	PinchS  float64         `json:"pinch_s"` // time both fingers held the cloth [s]
	// PeakPinchN is the largest force either fingertip sensor measured
	// while both fingers held the cloth, PeakPinchDesN the largest the
	// cloth asked for then [N].
	PeakPinchN    float64 `json:"peak_pinch_n"`
	PeakPinchDesN float64 `json:"peak_pinch_des_n"`
	// ContactTracking is how closely the fingertip sensors followed the
	// force the servo rendered while in contact (runs with exoskeletons).
	ContactTracking *haptics.TrackingResult `json:"contact_tracking,omitempty"`
	GC              *GCStats                `json:"gc,omitempty"`
	// Clock is when the run's clock read zero (real-time runs only).
	Clock *ClockOrigin `json:"clock,omitempty"`
	// HostStealPct is the share of the machine's CPU time a hypervisor
	// took from it during a real-time run (see rt.ReadCPUTimes).
	HostStealPct float64 `json:"host_steal_pct"`
	// MonitorPassesPerS is how often the Go runtime's monitor thread passed
	// during a real-time run (rt.MonitorPasses; Linux): seldom when every
	// sleeping thread lets it rest, thousands of times a second when one
	// keeps it at its shortest interval (internal/rt's package doc, "The
	// runtime's monitor"; the README has the figures).
	MonitorPassesPerS float64 `json:"monitor_passes_per_s,omitempty"`
	// IdlePoll reports whether idle cores polled during a real-time run
	// (Config.IdleSleep).
	IdlePoll   bool                    `json:"idle_poll"`
	Tables     []sessionlog.TableStats `json:"tables,omitempty"`
	SessionDir string                  `json:"session_dir,omitempty"`
	// Trips lists the first stops of a rendering finger, each with its
	// cause as far as the run knows it; TripCount counts them all.
	Trips     []Trip `json:"trips,omitempty"`
	TripCount int    `json:"trip_count"`

	// EndOfRun says, for a real-time run on exoskeletons, how each was
	// left: the run stops the servo when it is over (haptics.Servo.Stop)
	// and waits for the devices to confirm their power stages off before
	// it stops its loops.
	EndOfRun []FingerEnd `json:"end_of_run,omitempty"`
	// StopTick is the haptics tick (counted from 0) at which the run told
	// the servo to stop, for a replay; absent without EndOfRun.
	StopTick *uint64 `json:"stop_tick,omitempty"`

	// Kinematic says that no device rendered the force (the fingertips
	// followed the script): no sensor measured any. session.json records
	// it in its configuration ("kinematic").
	Kinematic bool `json:"-"`
}

// forceStats accumulates per-finger force figures on the haptics
// goroutine: index 0 of each pair is the fingertip sensor's, 1 the
// cloth's.
type forceStats struct {
	contactTicks [sim.NumFingers]uint64
	peak         [sim.NumFingers][2]float64
	sum          [sim.NumFingers][2]float64
	pinchTicks   uint64
	peakPinch    [2]float64
}

// add records one tick of both fingers: the force the sensor measured,
// the force the cloth asked the device to render, and whether the finger
// touches the cloth.
func (s *forceStats) add(rec *haptics.TickRecord) {
	both := true
	var peak [2]float64
	for f := range rec.Fingers {
		fr := &rec.Fingers[f]
		for i, v := range [2]*[3]float64{&fr.ForceMeas, &fr.ForceDes} {
			m := vec3.Norm(*v)
			s.peak[f][i] = max(s.peak[f][i], m)
			peak[i] = max(peak[i], m)
			if fr.Contact {
				s.sum[f][i] += m
			}
		}
		if fr.Contact {
			s.contactTicks[f]++
		} else {
			both = false
		}
	}
	if both {
		s.pinchTicks++
		for i := range peak {
			s.peakPinch[i] = max(s.peakPinch[i], peak[i])
		}
	}
}

func (r *Rig) summary(mode string, run, wall time.Duration) *Summary {
	s := &Summary{Mode: mode, Fabric: r.cfg.Fabric.Name, RunS: run.Seconds(), WallS: wall.Seconds(), SessionDir: r.SessionDir(), Kinematic: r.cfg.Scripted}
	for _, l := range r.loops {
		ls := LoopSummary{Name: l.name, PeriodMs: float64(l.period) / 1e6}
		if lr := l.rt.Load(); lr != nil {
			tel := &lr.Tel
			ls.Ticks = tel.Ticks.Load()
			ls.RateHz = tel.Rate()
			ls.RealTime = tel.RealTime.Load()
			l, c := tel.Lateness.Summary(), tel.Compute.Summary()
			ls.LatenessUs = latency.Durations(time.Microsecond, l.P50, l.P99, l.P999, l.Max)
			ls.ComputeUs = latency.Durations(time.Microsecond, c.P50, c.P99, c.P999, c.Max)
			ls.Overruns = tel.Overruns.Load()
			ls.LateOver1ms = tel.LateOver1ms.Load()
			ls.Standby = tel.Standby.Load()
			ls.Takeovers = tel.Takeovers.Load()
			ls.OffStandby = tel.OffStandby.Load()
			for _, lt := range tel.LateTicks() {
				ls.LateTicks = append(ls.LateTicks, LateTick{TS: lt.Deadline.Seconds(), LatenessUs: float64(lt.Lateness) / 1e3, Standby: lt.Standby})
			}
		} else {
			ls.Ticks = uint64(run / l.period)
			ls.RateHz = 1 / l.period.Seconds()
		}
		s.Loops = append(s.Loops, ls)
	}
	fs := &r.haptics.stats
	dt := r.cfg.HapticsPeriod.Seconds()
	for f := 0; f < sim.NumFingers; f++ {
		var mean [2]float64
		if n := fs.contactTicks[f]; n > 0 {
			for i := range mean {
				mean[i] = fs.sum[f][i] / float64(n)
			}
		}
		s.Fingers = append(s.Fingers, FingerSummary{
			Finger: sim.FingerName(f), ContactS: float64(fs.contactTicks[f]) * dt,
			PeakForceN: fs.peak[f][0], MeanForceN: mean[0], PeakForceDesN: fs.peak[f][1], MeanForceDesN: mean[1],
			TactileNotWritten: r.tactile.errs[f], TactileDelivered: r.tactile.deliv[f].summary(),
			TactileClipped: r.tactile.clippedFrames[f], TactileSilenced: r.tactile.silencedFrames[f],
		})
	}
	s.PinchS = float64(fs.pinchTicks) * dt
	s.PeakPinchN, s.PeakPinchDesN = fs.peakPinch[0], fs.peakPinch[1]
	s.Trips, s.TripCount = r.haptics.trips.list()
	if tr := r.haptics.track; tr != nil {
		res := tr.Result()
		s.ContactTracking = &res
	}
	return s
}
