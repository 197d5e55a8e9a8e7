package servobench

import (
	"fmt"
	"math"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// wall is a virtual wall in front of the index pad: a stiffness matrix
// k [N/m, world], the spring of stiffness K along the normal or a cloth's
// local model, and damping b [N·s/m] along the normal. It is handed to the
// servo as a LocalModel anchored on the wall's surface, so the servo
// evaluates the spring at the pad wherever the pad is, as it does the
// cloth's; the damping force, computed at 1 kHz from the finger state the
// servo published (as a 1 kHz simulation would), is its F0.
type wall struct {
	x0   [3]float64    // a point on the wall's surface [m, world]
	n    [3]float64    // the wall's outward normal: the force on the finger points along it
	k    [3][3]float64 // dF/dx [N/m, world]
	b    float64
	step uint64
}

// springMatrix is the stiffness matrix of a spring of stiffness k along
// the unit normal n.
func springMatrix(k float64, n [3]float64) [3][3]float64 {
	var m [3][3]float64
	for i := range 3 {
		for j := range 3 {
			m[i][j] = -k * n[i] * n[j]
		}
	}
	return m
}

// normalStiffness is the stiffness of k against a press along the unit
// direction d: the force back along -d per metre pressed [N/m].
func normalStiffness(k *[3][3]float64, d [3]float64) float64 {
	var s float64
	for i := range 3 {
		for j := range 3 {
			s -= d[i] * k[i][j] * d[j]
		}
	}
	return s
}

// update writes the wall's model for finger f from the servo's last
// published state.
func (w *wall) update(t time.Duration, fs *sim.FingerState, m *sim.LocalModel, f int) {
	w.step++
	*m = sim.LocalModel{T: t, Step: w.step, X0: w.x0, K: w.k, Valid: true, InContact: true, Depth: 1e-4}
	m.Normal = vec3.Scale(-1, w.n)
	x := fs.Fingers[f].Pos
	if pen := -vec3.Dot(vec3.Sub(x, w.x0), w.n); pen > 0 && fs.Fingers[f].Valid {
		vn := vec3.Dot(fs.Fingers[f].Vel, w.n)
		m.F0 = vec3.Scale(-w.b*vn, w.n)
	}
}

// wallRig is the index finger against a wall of stiffness matrix k and
// normal damping b in front of its home pad, the intent following press(t)
// along the pressing direction [m past the wall's surface].
func wallRig(cfg haptics.Config, p twin.ExoParams, k [3][3]float64, b float64, press func(t time.Duration) float64, dur time.Duration) (*simRig, *wall, error) {
	f := sim.IndexFinger
	home := homePad(p, f)
	n := vec3.Scale(-1, pressDir(f))
	w := &wall{x0: vec3.Add(home, vec3.Scale(-0.003, n)), n: n, k: k, b: b}
	pi := &profileIntent{p0: w.x0, dir: pressDir(f), dt: 100 * time.Microsecond}
	for tt := time.Duration(0); tt <= dur+time.Second; tt += pi.dt {
		pi.s = append(pi.s, press(tt))
		pi.v = append(pi.v, (press(tt+pi.dt/2)-press(tt-pi.dt/2))/pi.dt.Seconds())
	}
	// The wall is the environment here, evaluated by the servo every tick:
	// there are no sim steps to blend, and the bench measures what the
	// device and controller render, not the configured limit.
	cfg.Model.SlewNPerS = 0
	cfg.Model.MaxStiffness = 1e6
	r, err := newSimRig(cfg, p, [sim.NumFingers]twin.Intent{nil, pi})
	return r, w, err
}

// StiffnessPoint is the stiffness felt at the fingertip against the
// stiffness asked for.
type StiffnessPoint struct {
	Model    string  `json:"model"`     // "spring", or "cloth local model" (the cloth's stiffness in a pinch, along the press)
	AskedNpm float64 `json:"asked_npm"` // the model's stiffness along the press
	FeltNpm  float64 `json:"felt_npm"`  // least-squares slope of the measured force against the pad's true displacement over the held steps
	ErrPct   float64 `json:"error_pct"` // 100 (felt - asked) / asked
	HFRMSUm  float64 `json:"hf_rms_um"` // the pad's true motion above 20 Hz over the deepest hold, RMS [µm]: a stable contact stays at a few µm
	PeakN    float64 `json:"peak_n"`    // force at the deepest step [N]
}

// stiffnessSteps is how many depths the rendered-stiffness bench holds.
const stiffnessSteps = 5

// stiffnessForceShare is the most of the rendered force's bound
// (safety.max_force_n) the deepest step asks for.
const stiffnessForceShare = 0.8

// runStiffness presses the index finger into a wall of stiffness matrix k
// (model names it) in five steps, as a lab measures a device's stiffness quasi-statically:
// the finger's intent moves to each depth and holds it for 0.5 s, and the
// last 0.25 s of each hold gives one mean force (the force sensor, along
// the spring's normal) and one mean displacement (the device's true pad
// past the spring's surface). The felt stiffness is the slope of the line
// through the five points. The intent's depths are chosen so that the
// pad sinks about 0.4-2 mm against the finger's own stiffness, or less
// where that would ask more than stiffnessForceShare of the rendered
// force's bound: a spring pressed into the bound measures the bound (a
// 3,000 N/m spring at 2 mm asks 6 N of a 5 N bound and read 7 % soft).
func runStiffness(cfg haptics.Config, p twin.ExoParams, model string, km [3][3]float64) (StiffnessPoint, error) {
	k := normalStiffness(&km, pressDir(sim.IndexFinger))
	const hold = 500 * time.Millisecond
	const settle = 500 * time.Millisecond
	step := math.Min(0.0004, stiffnessForceShare*cfg.Safety.ForceBound(p.Rating.MaxForceCont)/(k*stiffnessSteps))
	depth := func(i int) float64 {
		pad := step * float64(i+1)
		return pad + k*pad/p.Finger.Stiffness
	}
	press := func(t time.Duration) float64 {
		if t < settle {
			return -0.002
		}
		i := int((t - settle) / hold)
		if i >= stiffnessSteps {
			return depth(stiffnessSteps - 1)
		}
		from := -0.002
		if i > 0 {
			from = depth(i - 1)
		}
		// A raised-cosine move over the first 150 ms of each hold.
		s := math.Min(1, float64((t-settle)%hold)/float64(150*time.Millisecond))
		return from + (depth(i)-from)*0.5*(1-math.Cos(math.Pi*s))
	}
	dur := settle + stiffnessSteps*hold
	r, w, err := wallRig(cfg, p, km, 0, press, dur)
	if err != nil {
		return StiffnessPoint{}, err
	}
	f := sim.IndexFinger
	var xs, fsn [stiffnessSteps]float64
	var n [stiffnessSteps]int
	var tail []float64
	for r.t < dur {
		w.update(r.t, &r.out, &r.in.Local[f], f)
		r.tick()
		if st := r.servo.Status(f); r.t > 400*time.Millisecond && st.State != haptics.StateActive {
			return StiffnessPoint{}, fmt.Errorf("servobench: %s of %.0f N/m: finger %v (%v)", model, k, st.State, st.Reason)
		}
		if r.t < settle {
			continue
		}
		i := int((r.t - settle) / hold)
		if i >= stiffnessSteps || (r.t-settle)%hold < hold/2 {
			continue
		}
		tr := r.exos[f].Truth()
		xs[i] += -vec3.Dot(vec3.Sub(tr.Pad, w.x0), w.n)
		fsn[i] += vec3.Dot(r.out.Fingers[f].Force, w.n)
		n[i]++
		if i == stiffnessSteps-1 {
			tail = append(tail, tr.Pad[0], tr.Pad[1], tr.Pad[2])
		}
	}
	var sx, sy, sxx, sxy float64
	for i := range stiffnessSteps {
		xs[i] /= float64(n[i])
		fsn[i] /= float64(n[i])
		sx += xs[i]
		sy += fsn[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * fsn[i]
	}
	const m = stiffnessSteps
	res := StiffnessPoint{Model: model, AskedNpm: k, PeakN: fsn[m-1], HFRMSUm: 1e6 * highPassRMS(tail, 1000, 20)}
	res.FeltNpm = (m*sxy - sx*sy) / (m*sxx - sx*sx)
	res.ErrPct = 100 * (res.FeltNpm - k) / k
	return res, nil
}

// ZWidthPoint is one point of the stable boundary: the stiffest wall of
// damping B the device and controller render stably.
type ZWidthPoint struct {
	BNspm float64 `json:"b_nspm"`
	KMax  float64 `json:"k_max_npm"`
}

// ZWidthResult is the device and controller's Z-width (Colgate & Brown
// 1994): the range of wall stiffness and damping rendered stably at 1 kHz.
type ZWidthResult struct {
	KMaxAtB0 float64       `json:"k_max_npm_at_b0"`
	Points   []ZWidthPoint `json:"points"`
	// The criterion: a wall is stable when, after the finger has pressed
	// into it and let most of its push go, the pad's motion above 5 Hz over the
	// last 0.4 s (0.4 s after the release) stays under HFLimitM RMS, the passivity observer's
	// energy never falls below -bound_j (so its controller never acts),
	// and no safety trip occurs.
	HFLimitM float64 `json:"hf_limit_m"`
	BoundJ   float64 `json:"bound_j"`
	Chart    string  `json:"chart,omitempty"` // where the chart was written, if it was
	// LimitNpm is the servo's limit on a local model's stiffness
	// (model.max_stiffness_npm): what is asked beyond it is rendered at
	// it, and the record says so.
	LimitNpm float64 `json:"limit_npm"`
	// Asked is the stiffness what the device renders asks for, against
	// which the boundary is judged (filled in by the caller that ran it).
	Asked []AskedRange `json:"asked,omitempty"`
}

// wallRun is one Z-width wall's outcome.
type wallRun struct {
	Tripped     bool    // the finger left the active state
	DampedTicks int     // ticks after the first contact in which the passivity controller acted
	MinEnergyJ  float64 // the passivity observer's lowest energy after the first contact [J]
	HFRMSM      float64 // the pad's motion above 5 Hz over the last 0.4 s, RMS [m]
}

// runWall runs the Z-width test at one (k, b): the finger's intent
// approaches the wall at 5 cm/s to 8 mm past its surface and holds there
// for 0.34 s, then relaxes to 3 mm past it (the hand lets go of most of
// its push, still resting on the wall with up to 0.9 N), and the device
// must come to rest against the wall.
func runWall(cfg haptics.Config, p twin.ExoParams, k, b float64) (wallRun, error) {
	var res wallRun
	press := func(t time.Duration) float64 {
		s := t.Seconds() - 0.4
		switch {
		case s < 0:
			return -0.005
		case s < 0.26:
			return -0.005 + 0.05*s
		case s < 0.6:
			return 0.008
		case s < 0.65: // a quick relaxation, not a jump the sensor would call a spike
			return 0.0055 + 0.0025*math.Cos(math.Pi*(s-0.6)/0.05)
		}
		return 0.003
	}
	dur := 1800 * time.Millisecond
	r, w, err := wallRig(cfg, p, springMatrix(k, vec3.Scale(-1, pressDir(sim.IndexFinger))), b, press, dur)
	if err != nil {
		return res, err
	}
	f := sim.IndexFinger
	var tail []float64
	e0 := 0.0
	for r.t < dur {
		w.update(r.t, &r.out, &r.in.Local[f], f)
		r.tick()
		fr := &r.rec.Fingers[f]
		switch {
		case r.t <= 400*time.Millisecond:
			e0 = fr.Energy // the observer counts from the first contact
		case fr.State != haptics.StateActive:
			res.Tripped = true
			return res, nil
		default:
			res.MinEnergyJ = math.Min(res.MinEnergyJ, fr.Energy-e0)
			if fr.Damping > 0 {
				res.DampedTicks++
			}
		}
		if r.t >= dur-400*time.Millisecond {
			tr := r.exos[f].Truth()
			tail = append(tail, tr.Pad[0], tr.Pad[1], tr.Pad[2])
		}
	}
	res.HFRMSM = highPassRMS(tail, 1000, 5)
	return res, nil
}

// wallStable applies the Z-width criterion to runWall's outcome: no trip,
// the pad at rest (under zwidthHFLimit), and the passivity observer
// within its bound, so that its controller never acted.
func wallStable(cfg haptics.Config, p twin.ExoParams, k, b float64) (bool, error) {
	w, err := runWall(cfg, p, k, b)
	if err != nil {
		return false, err
	}
	return !w.Tripped && w.DampedTicks == 0 && w.HFRMSM < zwidthHFLimit && w.MinEnergyJ > -cfg.Passivity.Bound, nil
}

const zwidthHFLimit = 10e-6 // [m] RMS above 5 Hz

// runZWidth finds, for each damping in bs, the largest stable stiffness:
// it raises the stiffness from kLo by factors of 1.5 until a wall is not
// stable (stability need not be monotonic in the stiffness: the lowest
// unstable wall bounds the region), then bisects between the last stable
// and the first unstable one to 3 %.
func runZWidth(cfg haptics.Config, p twin.ExoParams, bs []float64) (ZWidthResult, error) {
	res := ZWidthResult{HFLimitM: zwidthHFLimit, BoundJ: cfg.Passivity.Bound, LimitNpm: cfg.Model.MaxStiffness}
	const kLo, kHi = 50.0, 100000.0
	for _, b := range bs {
		lo, hi := 0.0, 0.0
		for k := kLo; k <= kHi; k *= 1.5 {
			ok, err := wallStable(cfg, p, k, b)
			if err != nil {
				return res, err
			}
			if !ok {
				hi = k
				break
			}
			lo = k
		}
		for lo > 0 && hi > 0 && hi/lo > 1.03 {
			mid := math.Sqrt(lo * hi)
			ok, err := wallStable(cfg, p, mid, b)
			if err != nil {
				return res, err
			}
			if ok {
				lo = mid
			} else {
				hi = mid
			}
		}
		res.Points = append(res.Points, ZWidthPoint{BNspm: b, KMax: lo})
		if b == 0 {
			res.KMaxAtB0 = lo
		}
	}
	return res, nil
}

// clothPinchSide is the cloth's mesh side in the rendered-stiffness
// bench's cloth point: the showcase's.
const clothPinchSide = 24

// clothPinchStiffness returns the stiffness matrix of the index finger's
// local model while the simulated pads pinch the default cloth as in the
// showcase (sim.ShowcasePinch, 0.3 s into the hold), turned so that the
// model's normal points along the bench's press: the cloth as the servo
// renders it, anisotropic and with the cloth's own damping-free
// linearisation.
func clothPinchStiffness(side int) ([3][3]float64, error) {
	var km [3][3]float64
	c, err := sim.New(sim.Config{NodesU: side, NodesV: side})
	if err != nil {
		return km, err
	}
	s := sim.ShowcasePinch(c.Config().Material.Thickness)
	var in sim.FingerState
	var out sim.Output
	dt := c.Config().Dt
	for t := time.Duration(0); t < 1200*time.Millisecond; t += dt {
		s.Sample(t, &in)
		c.Step(t, &in)
	}
	c.Output(&out)
	lm := &out.Local[sim.IndexFinger]
	if !lm.InContact {
		return km, fmt.Errorf("servobench: the simulated pinch has no contact at the index")
	}
	r := rotationBetween(lm.Normal, pressDir(sim.IndexFinger))
	for i := range 3 {
		for j := range 3 {
			var v float64
			for a := range 3 {
				for b := range 3 {
					v += r[i][a] * lm.K[a][b] * r[j][b]
				}
			}
			km[i][j] = v
		}
	}
	return km, nil
}

// rotationBetween returns the rotation that turns unit vector a into unit
// vector b (Rodrigues' formula).
func rotationBetween(a, b [3]float64) [3][3]float64 {
	v := vec3.Cross(a, b)
	c := vec3.Dot(a, b)
	r := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	if c < -1+1e-12 {
		// Opposite: a half turn about any axis perpendicular to a.
		ax := vec3.Cross(a, [3]float64{1, 0, 0})
		if vec3.Norm(ax) < 1e-6 {
			ax = vec3.Cross(a, [3]float64{0, 1, 0})
		}
		ax = vec3.Scale(1/vec3.Norm(ax), ax)
		for i := range 3 {
			for j := range 3 {
				r[i][j] = 2*ax[i]*ax[j] - r[i][j]
			}
		}
		return r
	}
	vx := [3][3]float64{{0, -v[2], v[1]}, {v[2], 0, -v[0]}, {-v[1], v[0], 0}}
	f := 1 / (1 + c)
	for i := range 3 {
		for j := range 3 {
			var sq float64
			for k := range 3 {
				sq += vx[i][k] * vx[k][j]
			}
			r[i][j] += vx[i][j] + f*sq
		}
	}
	return r
}
