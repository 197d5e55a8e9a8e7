package servobench

import (
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/devices/exo"
	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// simRig runs the servo against simulated exoskeletons and fingers in
// virtual time: the closed-loop experiments of the bench and the tests.
type simRig struct {
	servo  *haptics.Servo
	exos   [sim.NumFingers]*twin.Exo
	in     sim.Output
	out    sim.FingerState
	rec    haptics.TickRecord
	t      time.Duration
	period time.Duration
}

// newSimRig builds one simulated device per finger that has an intent (a
// nil intent leaves that finger without a device), each at its default
// base, all with the plant parameters p.
func newSimRig(cfg haptics.Config, p twin.ExoParams, intents [sim.NumFingers]twin.Intent) (*simRig, error) {
	r := &simRig{}
	var fingers [sim.NumFingers]haptics.Finger
	for f, in := range intents {
		if in == nil {
			continue
		}
		e, err := twin.NewExo(p, twin.DefaultBase(f), in, f)
		if err != nil {
			return nil, err
		}
		r.exos[f] = e
		fingers[f] = haptics.Finger{Device: e, Kin: e.Kinematics(), Base: e.Base()}
	}
	s, err := haptics.NewServo(cfg, fingers)
	if err != nil {
		return nil, err
	}
	r.servo = s
	r.period = s.Period()
	return r, nil
}

// tick runs one servo period and advances the rig's clock.
func (r *simRig) tick() {
	r.servo.Tick(r.t, &r.in, &r.out, &r.rec)
	r.t += r.period
}

// waitActive ticks until every device finger is active.
func (r *simRig) waitActive(limit time.Duration) error {
	for r.t < limit {
		all := true
		for f, e := range r.exos {
			if e != nil && r.servo.Status(f).State != haptics.StateActive {
				all = false
			}
		}
		if all {
			return nil
		}
		r.tick()
	}
	return fmt.Errorf("servobench: fingers not active after %v: %+v %+v", limit, r.servo.Status(0), r.servo.Status(1))
}

// homePad returns the world pad position of finger f at the home posture.
func homePad(p twin.ExoParams, f int) [3]float64 {
	kin, err := exo.New(p.Kinematics)
	if err != nil {
		panic(err)
	}
	b := twin.DefaultBase(f)
	return b.Point(kin.Forward(kin.Params().Home))
}

// pressDir returns the unit direction of the default device's pad normal
// at home for finger f: the force of a touched surface on the finger points
// the other way.
func pressDir(f int) [3]float64 {
	b := twin.DefaultBase(f)
	return b.Vec([3]float64{1, 0, 0})
}

// holdIntent keeps a finger's intent at one point.
type holdIntent struct{ pos [3]float64 }

func (h holdIntent) At(time.Duration, int) (pos, vel [3]float64) { return h.pos, [3]float64{} }

// profileIntent replays a precomputed motion along a line, sampled finely
// enough (0.1 ms) for the plant's substeps.
type profileIntent struct {
	p0, dir [3]float64
	dt      time.Duration
	s, v    []float64 // distance along dir [m] and speed [m/s] per sample
}

func (pi *profileIntent) At(t time.Duration, _ int) (pos, vel [3]float64) {
	i := int(t / pi.dt)
	if i < 0 {
		i = 0
	}
	if i >= len(pi.s) {
		i = len(pi.s) - 1
	}
	return vec3.Add(pi.p0, vec3.Scale(pi.s[i], pi.dir)), vec3.Scale(pi.v[i], pi.dir)
}

// segment kinds of a motion profile.
const (
	segRest = iota
	segAccel
	segConst
)

// strokeProfile builds back-and-forth strokes at speed v [m/s] along dir,
// centred on c: rest, then per stroke a raised-cosine speed-up with peak
// acceleration aPeak, a constant-speed stretch, a slow-down and a dwell.
// kind reports the segment per millisecond.
func strokeProfile(c, dir [3]float64, v, length, aPeak float64, strokes int, rest time.Duration) (*profileIntent, []int) {
	const dt = 100 * time.Microsecond
	ta := math.Pi / 2 * v / aPeak // raised cosine: a(t) = aPeak sin(π t / ta)
	da := v * ta / 2
	dc := length - 2*da
	if dc < 0 {
		panic("servobench: stroke too short for its speed")
	}
	tc := dc / v
	pi := &profileIntent{p0: vec3.Sub(c, vec3.Scale(length/2, dir)), dir: dir, dt: dt}
	var kind []int
	s, sign := 0.0, 1.0
	add := func(dur float64, k int, speed func(tau float64) float64) {
		n := int(math.Round(dur / dt.Seconds()))
		for i := 0; i < n; i++ {
			tau := (float64(i) + 0.5) * dt.Seconds()
			sp := sign * speed(tau)
			s += sp * dt.Seconds()
			pi.s = append(pi.s, s)
			pi.v = append(pi.v, sp)
			if len(pi.s)%10 == 0 {
				kind = append(kind, k)
			}
		}
	}
	add(rest.Seconds(), segRest, func(float64) float64 { return 0 })
	for range strokes {
		for range 2 {
			add(ta, segAccel, func(tau float64) float64 { return v / 2 * (1 - math.Cos(math.Pi*tau/ta)) })
			add(tc, segConst, func(float64) float64 { return v })
			add(ta, segAccel, func(tau float64) float64 { return v / 2 * (1 + math.Cos(math.Pi*tau/ta)) })
			add(0.1, segRest, func(float64) float64 { return 0 })
			sign = -sign
		}
	}
	add(0.2, segRest, func(float64) float64 { return 0 })
	return pi, kind
}

// forceModel sets a LocalModel that asks for the constant force f (world)
// wherever the finger is.
func forceModel(m *sim.LocalModel, f [3]float64, step uint64) {
	*m = sim.LocalModel{
		Step: step, F0: f, Normal: [3]float64{0, 1, 0}, Depth: 1e3,
		InContact: true, Valid: true,
	}
}
