package sim

import (
	"fmt"
	"time"
)

// Keyframe is where both pad centres are at time T (world frame, m).
type Keyframe struct {
	T   time.Duration
	Pos [NumFingers][3]float64
}

// Script moves the two fingertip pads through keyframes along
// minimum-jerk segments (each segment starts and stops at rest), the way a
// reaching hand moves. It is the scripted finger path of the tests and of
// Bench; the system's handling sequences live in devices/twin.
type Script struct {
	Keys []Keyframe
}

// NewScript checks that the keyframes are finite and in increasing time.
func NewScript(keys []Keyframe) (*Script, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("sim: script has no keyframes")
	}
	for i, k := range keys {
		for _, p := range k.Pos {
			for _, x := range p {
				if !isFinite(x) {
					return nil, fmt.Errorf("sim: script keyframe %d: non-finite position %v", i, k.Pos)
				}
			}
		}
		if i > 0 && k.T <= keys[i-1].T {
			return nil, fmt.Errorf("sim: script keyframe %d at %v not after %v", i, k.T, keys[i-1].T)
		}
	}
	return &Script{Keys: keys}, nil
}

// Duration is the time of the last keyframe.
func (s *Script) Duration() time.Duration { return s.Keys[len(s.Keys)-1].T }

// Sample writes both fingers at time t into dst: positions, velocities,
// pad normals (+z for the thumb, -z for the index, as in the showcase
// scene), valid, and dst.T = t. It allocates nothing.
func (s *Script) Sample(t time.Duration, dst *FingerState) {
	dst.T = t
	k := s.Keys
	i := 1
	for i < len(k) && k[i].T < t {
		i++
	}
	for f := range NumFingers {
		fg := &dst.Fingers[f]
		fg.Valid = true
		fg.Normal = [3]float64{0, 0, 1}
		if f == IndexFinger {
			fg.Normal[2] = -1
		}
		fg.Vel = [3]float64{}
		switch {
		case t <= k[0].T:
			fg.Pos = k[0].Pos[f]
		case i == len(k):
			fg.Pos = k[len(k)-1].Pos[f]
		default:
			a, b := &k[i-1], &k[i]
			span := (b.T - a.T).Seconds()
			tau := (t - a.T).Seconds() / span
			s5 := tau * tau * tau * (10 + tau*(-15+6*tau))
			ds := 30 * tau * tau * (1 - tau) * (1 - tau) / span
			for c := range 3 {
				d := b.Pos[f][c] - a.Pos[f][c]
				fg.Pos[c] = a.Pos[f][c] + d*s5
				fg.Vel[c] = d * ds
			}
		}
	}
}

// PinchAndPull is the benchmark's handling: the two pads approach the
// cloth's mid-plane z = at[2] at the pinch point from -z (thumb) and +z
// (index), close until each pad surface is squeeze past the fabric's
// surface, hold, move the pinched point by pull, hold, open, and withdraw
// to 3 cm either side of the mid-plane (clear of the cloth springing
// back). It lasts 3.6 s. padRadius and thickness position the pads; pull
// is in metres.
func PinchAndPull(at, pull [3]float64, padRadius, thickness, squeeze float64) (*Script, error) {
	surf := padRadius + thickness/2
	pos := func(d, pz float64, moved bool) [NumFingers][3]float64 {
		p := at
		if moved {
			p = [3]float64{at[0] + pull[0], at[1] + pull[1], at[2] + pull[2]}
		}
		th, ix := p, p
		th[2] = p[2] - d + pz
		ix[2] = p[2] + d + pz
		return [NumFingers][3]float64{th, ix}
	}
	far, near, grip := 0.03, surf+0.003, surf-squeeze
	const ms = time.Millisecond
	keys := []Keyframe{
		{0, pos(far, 0, false)},
		{500 * ms, pos(near, 0, false)},
		{900 * ms, pos(grip, 0, false)},
		{1200 * ms, pos(grip, 0, false)},
		{2700 * ms, pos(grip, 0, true)},
		{3000 * ms, pos(grip, 0, true)},
		{3300 * ms, pos(near+0.01, 0, true)},
		{3600 * ms, pos(far, -pull[2], true)},
	}
	return NewScript(keys)
}

// ShowcasePinch is PinchAndPull for the showcase scene (as devices/twin's
// default script): pinch at (0.05, 0.10) on the cloth, pull 3 cm in -z and
// 2 cm down, 8 mm pads squeezing 1 mm into a fabric of the given thickness
// (a validated Material's; a non-finite one is a programmer error and
// panics).
func ShowcasePinch(thickness float64) *Script {
	s, err := PinchAndPull([3]float64{0.05, 0.10, 0}, [3]float64{0, -0.02, -0.03}, 0.008, thickness, 0.001)
	if err != nil {
		panic(err)
	}
	return s
}
