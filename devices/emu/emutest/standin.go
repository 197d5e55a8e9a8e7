// Package emutest provides the small stand-in device backends that
// protocol tests run behind devices/emu: an exoskeleton of one
// mass-damper per joint held by a visco-elastic finger, and a pin array
// that switches frames on the 40 Hz grid, both simple enough for a test
// to predict their response (the physical twins of devices/twin are the
// emulator's default backends); and Serve, which serves an emulated device
// over any transport.Conn.
package emutest

import (
	"math"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
)

// MassDamperExo is a small physical stand-in for a fingertip exoskeleton
// worn on a finger, one independent joint per degree of freedom:
//
//	J q̈ = τ − (Bm + Bf) q̇ − Kf (q − Rest)
//
// J is the motor and link inertia reflected to the joint, Bm the drive's
// viscous friction, Kf and Bf the finger's passive stiffness and damping
// about the joint, τ the applied torque (zero while disabled, saturated at
// the spec's MaxTorque). It is integrated with semi-implicit Euler in
// substeps of at most 50 µs, so Advance may be called at any rate. Joint
// limits are inelastic stops. The encoders quantise q to EncoderRes; the
// force sensor reads the finger's reaction Fi = (Kf (qi − Resti) + Bf q̇i)/L
// at a lever arm L, quantised to ForceRes.
//
// It implements devices.Exoskeleton and devices.Clocked; like every
// simulated device its physics only moves when Advance is called.
type MassDamperExo struct {
	J, Bm, Kf, Bf, L float64 // [kg·m²], [N·m·s/rad], [N·m/rad], [N·m·s/rad], [m]
	Rest             [3]float64

	spec    devices.ExoSpec
	q, qd   [3]float64
	tau     [3]float64
	t       time.Duration
	enabled bool
	seq     uint32
	ackSeq  uint32
}

var (
	_ devices.Exoskeleton = (*MassDamperExo)(nil)
	_ devices.Clocked     = (*MassDamperExo)(nil)
)

// NewMassDamperExo returns the stand-in exoskeleton at rest, disabled.
func NewMassDamperExo(model, serial string) *MassDamperExo {
	m := &MassDamperExo{
		J: 2e-5, Bm: 2e-3, Kf: 0.08, Bf: 1e-3, L: 0.04,
		Rest: [3]float64{0.4, 0.6, 0.3},
		spec: devices.ExoSpec{
			Model: model, Serial: serial, Transport: devices.TransportSim, DoF: 3,
			JointMin: [3]float64{-0.2, -0.2, -0.2}, JointMax: [3]float64{1.6, 1.6, 1.6},
			MaxTorque: [3]float64{0.3, 0.3, 0.3}, MaxForceCont: 5, MaxForcePeak: 10,
			ForceRes: 1e-3, EncoderRes: 2 * math.Pi / (4096 * 4 * 50), MaxStiffness: 2000,
			SamplePeriod: time.Millisecond,
		},
	}
	m.q = m.Rest
	return m
}

// Spec returns the stand-in's capabilities.
func (m *MassDamperExo) Spec() devices.ExoSpec { return m.spec }

// Advance integrates the joints up to t; earlier times are ignored.
func (m *MassDamperExo) Advance(t time.Duration) {
	const maxStep = 50e-6
	dt := (t - m.t).Seconds()
	if dt <= 0 {
		return
	}
	m.t = t
	n := int(math.Ceil(dt / maxStep))
	h := dt / float64(n)
	for range n {
		for i := range 3 {
			tau := 0.0
			if m.enabled {
				tau = m.tau[i]
			}
			acc := (tau - (m.Bm+m.Bf)*m.qd[i] - m.Kf*(m.q[i]-m.Rest[i])) / m.J
			m.qd[i] += h * acc
			m.q[i] += h * m.qd[i]
			if m.q[i] < m.spec.JointMin[i] {
				m.q[i], m.qd[i] = m.spec.JointMin[i], 0
			} else if m.q[i] > m.spec.JointMax[i] {
				m.q[i], m.qd[i] = m.spec.JointMax[i], 0
			}
		}
	}
}

func quantise(v, res float64) float64 { return math.Round(v/res) * res }

// Read samples the encoders and the force sensor.
func (m *MassDamperExo) Read(dst *devices.ExoState) error {
	m.seq++
	*dst = devices.ExoState{DeviceTime: m.t, Seq: m.seq, Enabled: m.enabled, AckSeq: m.ackSeq}
	if !m.enabled {
		dst.Confirm = devices.ConfirmDevice // the stand-in's stage follows Enable at once
	}
	for i := range 3 {
		dst.Joint[i] = quantise(m.q[i], m.spec.EncoderRes)
		dst.Force[i] = quantise((m.Kf*(m.q[i]-m.Rest[i])+m.Bf*m.qd[i])/m.L, m.spec.ForceRes)
	}
	return nil
}

// Write sets the joint torques, saturated at MaxTorque.
func (m *MassDamperExo) Write(cmd *devices.ExoCommand) error {
	if !m.enabled {
		return devices.ErrDisabled
	}
	for i, t := range cmd.Torque {
		lim := m.spec.MaxTorque[i]
		m.tau[i] = max(-lim, min(lim, t))
	}
	m.ackSeq = cmd.Seq
	return nil
}

// Enable switches the (simulated) power stage; disabling zeroes the torque.
func (m *MassDamperExo) Enable(on bool) error {
	m.enabled = on
	if !on {
		m.tau = [3]float64{}
	}
	return nil
}

// Close does nothing; the stand-in holds no resources.
func (m *MassDamperExo) Close() error { return nil }

// PinArray is a stand-in 6 x 4 vibrotactile array: it clamps amplitudes to
// its limits and switches to the newest frame on the 40 Hz grid (every
// 25 ms), as the protocol asks of a real array. It implements
// devices.TactileArray and devices.Clocked.
type PinArray struct {
	spec     devices.TactileSpec
	pending  devices.TactileFrame
	active   devices.TactileFrame
	next     time.Duration
	clamped  bool
	switched uint64
}

var (
	_ devices.TactileArray = (*PinArray)(nil)
	_ devices.Clocked      = (*PinArray)(nil)
)

// NewPinArray returns a silent stand-in array.
func NewPinArray(model, serial string) *PinArray {
	return &PinArray{spec: devices.TactileSpec{
		Model: model, Serial: serial, Transport: devices.TransportSim,
		Rows: devices.PinRows, Cols: devices.PinCols, PitchM: 2e-3,
		MaxA40Um: 300, MaxA320Um: 50, FramePeriod: 25 * time.Millisecond,
	}}
}

// Spec returns the stand-in's capabilities.
func (a *PinArray) Spec() devices.TactileSpec { return a.spec }

// WriteFrame queues f for the next 40 Hz boundary, clamped to the limits.
func (a *PinArray) WriteFrame(f *devices.TactileFrame) error {
	a.pending = *f
	a.clamped = false
	for i := range devices.Pins {
		a.pending.A40Um[i], a.clamped = clampAmp(f.A40Um[i], a.spec.MaxA40Um, a.clamped)
		a.pending.A320Um[i], a.clamped = clampAmp(f.A320Um[i], a.spec.MaxA320Um, a.clamped)
	}
	return nil
}

func clampAmp(v, lim float64, clamped bool) (float64, bool) {
	switch {
	case !(v >= 0):
		return 0, true
	case v > lim:
		return lim, true
	}
	return v, clamped
}

// Advance switches to the pending frame at each 25 ms boundary up to t.
func (a *PinArray) Advance(t time.Duration) {
	for t >= a.next {
		a.active = a.pending
		a.switched++
		a.next += a.spec.FramePeriod
	}
}

// Active returns the frame the pins are playing.
func (a *PinArray) Active() devices.TactileFrame { return a.active }

// Clamped reports whether the newest frame was clamped.
func (a *PinArray) Clamped() bool { return a.clamped }

// Close does nothing; the stand-in holds no resources.
func (a *PinArray) Close() error { return nil }

// StandInExo builds the stand-in exoskeleton for emu.Config.NewExo.
func StandInExo(dc emu.DeviceConfig) (devices.Exoskeleton, error) {
	return NewMassDamperExo(dc.Model, dc.Serial), nil
}

// StandInTactile builds the stand-in pin array for emu.Config.NewTactile.
func StandInTactile(dc emu.DeviceConfig) (devices.TactileArray, error) {
	return NewPinArray(dc.Model, dc.Serial), nil
}
