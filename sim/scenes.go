package sim

import (
	"math"
	"time"
)

// The self-collision scenes: handlings that lay the cloth on itself.
// Both are built for a configuration's geometry (its size, place, pads
// and fabric thickness) and hanging cloth (PinTopEdge), like
// ShowcasePinch; devices/twin's handling scripts of the same names follow
// the same keyframes (app/rig converts them).

// sceneRef returns the corner, size, contact distance (pad radius plus
// half the thickness) and thickness of c's scene.
func sceneRef(c Config) (corner [3]float64, w, h, surf, th float64) {
	c = c.WithDefaults()
	th = c.Material.Thickness
	return c.Corner(), c.Width, c.Height, max(c.PadRadius[Thumb], c.PadRadius[IndexFinger]) + th/2, th
}

// FoldScript is the fold scene: the thumb, from behind the cloth, lifts
// the bottom-left corner and carries it across, over the fold line from
// the left edge 16 cm up to the bottom edge 16 cm along, turning the
// corner's triangle over onto the front of the cloth; the index waits
// behind the cloth where the corner lands, the two pinch the fold, the two
// layers between the pads, press it flat, slide the pinch 3 cm along the
// fold line and let go (see fold). It lasts 5.5 s.
func FoldScript(cfg Config) *Script {
	c, _, _, surf, th := sceneRef(cfg)
	const leg = 0.16
	p0 := [3]float64{c[0] + 0.03, c[1] + 0.03, c[2]}
	f := fold{
		p0:    p0,
		d:     [3]float64{sqrt1_2, sqrt1_2, 0},
		rho:   (c[0] + c[1] + leg - p0[0] - p0[1]) * sqrt1_2,
		front: true,
		swing: foldSwing,
		slide: 0.03,
	}
	s, err := NewScript(f.keys(c[2], surf, th))
	if err != nil {
		panic(err) // the keyframes are constants of a validated configuration
	}
	return s
}

// FoldLanded is when FoldScript's flap has landed on the cloth: its
// pad's approach and its turn.
const FoldLanded = foldApproach + foldSwing

// foldApproach is how long a fold's pad takes to reach the flap, and
// foldSwing how long FoldScript's turn takes.
const (
	foldApproach = 700 * time.Millisecond
	foldSwing    = 2 * time.Second
)

// fold is a push fold of the hanging cloth: a pad lifts the flap of
// cloth below a fold line at p0, from the flap's back, and turns it over
// the line onto the cloth; the flap's weight keeps it on the pad all the
// way, the pad riding on the flap's back, which ends up facing out. The
// other pad waits on the cloth's other side where the flap lands; the two
// pinch the fold, the two layers between the pads, press it flat, slide
// the pinch along the fold line and let go.
type fold struct {
	p0    [3]float64    // where the pad lifts the flap
	d     [3]float64    // unit, in the cloth's plane, from p0 across the fold line
	rho   float64       // p0's distance from the fold line [m]
	front bool          // the flap turns over onto the cloth's front (+z); else its back
	swing time.Duration // how long the turn takes
	slide float64       // how far the pinch slides along the fold line [m]
}

// keys returns the fold's keyframes for a cloth in the plane z = z0, pads
// of contact distance surf and a fabric th thick.
func (f fold) keys(z0, surf, th float64) []Keyframe {
	const ms = time.Millisecond
	sz := 1.0 // the side the flap turns to
	if !f.front {
		sz = -1
	}
	foot := add3(f.p0, scale3(f.rho, f.d))
	const press = 0.002 // the lifting pad's surface 2 mm into the flap
	// At angle φ the flap's point is foot - ρ·cos φ·d + ρ·sin φ·sz·z,
	// lifted by th at the end (it lands on the cloth); its back faces
	// -(sin φ·d + cos φ·sz·z).
	ride := func(phi, away float64) [3]float64 {
		p := add3(foot, scale3(-f.rho*math.Cos(phi), f.d))
		p[2] = z0 + sz*(f.rho*math.Sin(phi)+th*phi/math.Pi)
		n := add3(scale3(math.Sin(phi), f.d), [3]float64{0, 0, sz * math.Cos(phi)})
		return add3(p, scale3(-(surf-press+away), n))
	}
	land := add3(foot, scale3(f.rho, f.d))
	// The fold pressed flat: two layers, 2·th, between pads whose surfaces
	// are 1 mm into them, round the stack's middle q, 1.4 cm back from
	// where the flap's point landed.
	q0 := add3(land, scale3(-0.014, f.d))
	q0[2] = z0 + sz*th/2
	along := [3]float64{-f.d[1], f.d[0], 0}
	q1 := add3(q0, scale3(f.slide, along))
	e := surf + th/2 - 0.001
	// The lifting pad is the thumb when it works from behind.
	pair := func(lift, other [3]float64) [NumFingers][3]float64 {
		if f.front {
			return [NumFingers][3]float64{lift, other}
		}
		return [NumFingers][3]float64{other, lift}
	}
	pinch := func(q [3]float64, gap float64) [NumFingers][3]float64 {
		return pair([3]float64{q[0], q[1], q[2] + sz*(e+gap)}, [3]float64{q[0], q[1], q[2] - sz*(e+gap)})
	}
	wait := [3]float64{q0[0], q0[1], z0 - sz*0.03}
	keys := []Keyframe{
		{0, pair(ride(0, 0.02), wait)},
		{400 * ms, pair(ride(0, 0.002), wait)},
		{foldApproach, pair(ride(0, 0), wait)},
	}
	// The turn in 12 minimum-jerk segments.
	const steps = 12
	for k := 1; k <= steps; k++ {
		keys = append(keys, Keyframe{foldApproach + f.swing*time.Duration(k)/steps, pair(ride(math.Pi*float64(k)/steps, 0), wait)})
	}
	t := foldApproach + f.swing
	return append(keys,
		Keyframe{t + 500*ms, pinch(q0, 0)},
		Keyframe{t + 1000*ms, pinch(q0, 0)},
		Keyframe{t + 2000*ms, pinch(q1, 0)},
		Keyframe{t + 2400*ms, pinch(q1, 0)},
		Keyframe{t + 2800*ms, pinch(q1, 0.02)},
	)
}

// CrumpleScript is the crumple scene: both pads press into the front of
// the hanging cloth near its bottom edge, 10 cm apart, and push it up
// towards the stand's rod, so that the cloth above them, with nothing to
// hold it up, piles into folds laid on one another; they hold the pile
// pressed, then withdraw. It lasts 4.5 s.
func CrumpleScript(cfg Config) *Script {
	c, w, h, surf, _ := sceneRef(cfg)
	const ms = time.Millisecond
	x0 := c[0] + w/2
	at := func(y, z float64) [NumFingers][3]float64 {
		const half = 0.05
		return [NumFingers][3]float64{{x0 - half, c[1] + y, c[2] + z}, {x0 + half, c[1] + y, c[2] + z}}
	}
	const far = 0.05
	press := surf - 0.004 // 4 mm behind the cloth's plane
	low, high := 0.05*h, 0.65*h
	keys := []Keyframe{
		{0, at(low, far)},
		{500 * ms, at(low, surf+0.003)},
		{1000 * ms, at(low, press)},
		{3000 * ms, at(high, press)},
		{3500 * ms, at(high, press)},
		{4500 * ms, at(high, far)},
	}
	s, err := NewScript(keys)
	if err != nil {
		panic(err)
	}
	return s
}
