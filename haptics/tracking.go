package haptics

import (
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/haptics/filter"
	"github.com/haptex/haptex/sim"
)

// Contact-tracking constants. A lab reads a fingertip force sensor through
// a low-pass at the kinesthetic bandwidth (force feedback is felt as force
// up to 20-30 Hz; above that it is vibration, Brooks 1990, Shimoga 1993),
// so the figures compare both forces through the same filter, which also
// keeps the sensor's noise (6 mN per axis on the simulated device) from
// counting as error. The raw figure is reported beside them.
const (
	trackingHz       = 30.0                   // corner of the 2nd-order Butterworth on both forces
	trackingGap      = 20 * time.Millisecond  // a shorter break in contact does not end an episode
	trackingOnset    = 100 * time.Millisecond // the window after first contact judged for overshoot
	trackingMinPeakN = 0.05                   // episodes with a smaller desired peak are not judged for peaks
)

// ContactTracking measures, from the servo's TickRecords, how closely the
// force at the fingertip sensor follows the force the cloth computes at
// the measured pad (FingerRecord.ForceDes: the simulation's local model,
// not what the servo made of it, so a stiffness limit, the blend between
// sim steps and passivity damping all count as error) while a finger is
// active and in contact with the cloth. Add takes one record per tick and allocates nothing; Result may
// be called at any time. It is not safe for concurrent use.
//
// A contact episode runs from a finger's first tick in contact to its last
// before a break of more than 20 ms. Per episode with a desired peak of at
// least 0.05 N it judges the peaks (shortfall) and the first 100 ms
// (overshoot); the lighter episodes are counted, with their worst onset
// excess in newtons.
type ContactTracking struct {
	dt      time.Duration
	fingers [sim.NumFingers]trackingFinger
}

// TrackingResult is what ContactTracking measured, per finger (thumb,
// index).
type TrackingResult struct {
	// RMSRel is RMS(|f_meas - f_des|) / RMS(|f_des|) over the ticks in
	// contact, both forces through the 30 Hz low-pass.
	RMSRel [sim.NumFingers]float64 `json:"rms_rel"`
	// RMSRelRaw is the same from the raw samples (sensor noise included).
	RMSRelRaw [sim.NumFingers]float64 `json:"rms_rel_raw"`
	// PeakShortfall is the worst episode's 1 - peak |f_meas| / peak
	// |f_des| (0 when measured reaches desired).
	PeakShortfall [sim.NumFingers]float64 `json:"peak_shortfall"`
	// OnsetOvershoot is the worst episode's largest |f_meas| - |f_des| in
	// its first 100 ms, relative to the episode's desired peak (0 when
	// the measured force never exceeds the desired one).
	OnsetOvershoot [sim.NumFingers]float64 `json:"onset_overshoot"`
	Episodes       [sim.NumFingers]int     `json:"episodes"` // contact episodes judged for peaks
	// LightEpisodes counts the episodes whose desired peak stays under
	// 0.05 N, not judged for peaks (a ratio to a few millinewtons says
	// little), and LightOnsetExcessN is their worst excess of measured
	// over desired force in their first 100 ms [N]: a light touch the
	// device pushes harder than the cloth does.
	LightEpisodes     [sim.NumFingers]int     `json:"light_episodes"`
	LightOnsetExcessN [sim.NumFingers]float64 `json:"light_onset_excess_n"`
	ContactS          [sim.NumFingers]float64 `json:"contact_s"`         // time active and in contact [s]
	PeakDesN          [sim.NumFingers]float64 `json:"peak_des_n"`        // largest filtered |f_des| in contact [N]
	PeakMeasN         [sim.NumFingers]float64 `json:"peak_meas_n"`       // largest filtered |f_meas| in contact [N]
	LimitedS          [sim.NumFingers]float64 `json:"limited_s"`         // time the coupling limited the stiffness [s]
	CappedS           [sim.NumFingers]float64 `json:"capped_s"`          // time the cloth's force was capped at the finger's force limit (FingerRecord.Capped): f_des is then less than the cloth computes [s]
	MaxStiffNpm       [sim.NumFingers]float64 `json:"max_stiffness_npm"` // largest stiffness the local model asked for in contact [N/m]
	PassiveDampedS    [sim.NumFingers]float64 `json:"passive_damped_s"`  // time the passivity controller added damping [s]
}

type trackingFinger struct {
	fd, fm [3]*filter.Filter

	ticks                  uint64
	e2, d2, e2raw, d2raw   float64
	peakDes, peakMeas      float64
	limited, damped        uint64
	capped                 uint64
	maxStiff               float64
	shortfall, overshoot   float64
	episodes, light        int
	lightExcess            float64
	in                     bool          // inside an episode
	start, last            time.Duration // first and last contact tick of the episode
	epDes, epMeas, epOnset float64       // the episode's peaks and its worst onset excess [N]
}

// NewContactTracking returns a tracker for records taken every period.
func NewContactTracking(period time.Duration) (*ContactTracking, error) {
	if period <= 0 {
		return nil, fmt.Errorf("haptics: contact tracking: period %v", period)
	}
	sos, err := filter.Butterworth(2, filter.LowPass, 1/period.Seconds(), trackingHz)
	if err != nil {
		return nil, fmt.Errorf("haptics: contact tracking: %w", err)
	}
	c := &ContactTracking{dt: period}
	for f := range c.fingers {
		for i := range 3 {
			c.fingers[f].fd[i] = filter.New(sos)
			c.fingers[f].fm[i] = filter.New(sos)
		}
	}
	return c, nil
}

// Add takes one tick's record.
func (c *ContactTracking) Add(rec *TickRecord) {
	t := time.Duration(math.Round(rec.T * float64(time.Second)))
	for f := range rec.Fingers {
		c.fingers[f].add(t, &rec.Fingers[f], c.dt)
	}
}

func (tf *trackingFinger) add(t time.Duration, fr *FingerRecord, dt time.Duration) {
	var d, m, e, draw, eraw float64
	for i := range 3 {
		a := tf.fd[i].Step(fr.ForceDes[i])
		b := tf.fm[i].Step(fr.ForceMeas[i])
		d += a * a
		m += b * b
		e += (b - a) * (b - a)
		draw += fr.ForceDes[i] * fr.ForceDes[i]
		x := fr.ForceMeas[i] - fr.ForceDes[i]
		eraw += x * x
	}
	d, m = math.Sqrt(d), math.Sqrt(m)
	if tf.in && t-tf.last > trackingGap {
		tf.endEpisode()
	}
	if !fr.Contact || fr.State != StateActive {
		return
	}
	if !tf.in {
		tf.in, tf.start = true, t
		tf.epDes, tf.epMeas, tf.epOnset = 0, 0, 0
	}
	tf.last = t
	tf.ticks++
	tf.e2 += e
	tf.d2 += d * d
	tf.e2raw += eraw
	tf.d2raw += draw
	tf.peakDes = max(tf.peakDes, d)
	tf.peakMeas = max(tf.peakMeas, m)
	tf.epDes = max(tf.epDes, d)
	tf.epMeas = max(tf.epMeas, m)
	if t-tf.start < trackingOnset {
		tf.epOnset = max(tf.epOnset, m-d)
	}
	if fr.Limited {
		tf.limited++
	}
	if fr.Capped {
		tf.capped++
	}
	tf.maxStiff = max(tf.maxStiff, fr.Stiffness)
	if fr.Damping > 0 {
		tf.damped++
	}
}

func (tf *trackingFinger) endEpisode() {
	tf.in = false
	if tf.epDes < trackingMinPeakN {
		tf.light++
		tf.lightExcess = max(tf.lightExcess, tf.epOnset)
		return
	}
	tf.episodes++
	tf.shortfall = max(tf.shortfall, 1-tf.epMeas/tf.epDes)
	tf.overshoot = max(tf.overshoot, tf.epOnset/tf.epDes)
}

// Result returns the figures so far; an episode still open counts as
// ended.
func (c *ContactTracking) Result() TrackingResult {
	var r TrackingResult
	for f := range c.fingers {
		tf := c.fingers[f] // a copy: closing the open episode here changes nothing
		if tf.in {
			tf.endEpisode()
		}
		if tf.d2 > 0 {
			r.RMSRel[f] = math.Sqrt(tf.e2 / tf.d2)
		}
		if tf.d2raw > 0 {
			r.RMSRelRaw[f] = math.Sqrt(tf.e2raw / tf.d2raw)
		}
		r.PeakShortfall[f] = max(0, tf.shortfall)
		r.OnsetOvershoot[f] = tf.overshoot
		r.Episodes[f] = tf.episodes
		r.LightEpisodes[f], r.LightOnsetExcessN[f] = tf.light, tf.lightExcess
		r.ContactS[f] = float64(tf.ticks) * c.dt.Seconds()
		r.PeakDesN[f], r.PeakMeasN[f] = tf.peakDes, tf.peakMeas
		r.LimitedS[f] = float64(tf.limited) * c.dt.Seconds()
		r.CappedS[f] = float64(tf.capped) * c.dt.Seconds()
		r.MaxStiffNpm[f] = tf.maxStiff
		r.PassiveDampedS[f] = float64(tf.damped) * c.dt.Seconds()
	}
	return r
}
