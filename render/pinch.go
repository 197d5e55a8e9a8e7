package render

import (
	"math"
	"sync/atomic"
)

// Pinch is the finger pair the mouse drives when no exoskeleton is
// connected: a pinch point between the two pads, open or closed. The thumb
// sits on the -z side of the point with its pad facing +z, the index on the
// +z side facing -z (the showcase scene, devices/twin.DefaultScript).
type Pinch struct {
	// Point is the midpoint between the two pads [m], world frame. Dragging
	// moves its x and y; the wheel moves Point[2], the depth.
	Point  [3]float64
	Closed bool    // the pads are pressed together (true) or held Gap apart
	Gap    float64 // distance between the two pad surfaces when open [m]
	Active bool    // a window is open and driving the pair
	Seq    uint64  // counts the changes; equal Seq means the same Pinch
}

// DefaultPinch is where the pair starts and where reset puts it: open by
// 4 cm, around (0, 0.12) in the cloth's plane, as the scene's approach does.
func DefaultPinch() Pinch {
	return Pinch{Point: [3]float64{0, 0.12, 0}, Gap: 0.04}
}

// PadCentres returns where the two pad centres belong for pad spheres of
// radius r [m]: on the z axis through Point, their surfaces Gap apart when
// open and touching when closed.
func (p *Pinch) PadCentres(r float64) (thumb, index [3]float64) {
	h := r
	if !p.Closed {
		h += p.Gap / 2
	}
	thumb, index = p.Point, p.Point
	thumb[2] -= h
	index[2] += h
	return thumb, index
}

// AtomicPinch hands a Pinch from the window to the loop that drives the
// simulated fingers. Load is wait-free and allocates nothing, so the 1 kHz
// haptics tick may call it; Store allocates one Pinch per change and is
// called by the window on its render thread (input events, not every
// frame). Any number of goroutines may Load; Stores must not run
// concurrently with each other. The zero value holds no Pinch.
type AtomicPinch struct {
	p atomic.Pointer[Pinch]
}

// Load copies the latest Pinch into dst and reports whether there was one;
// dst is left alone when nothing has been stored yet.
func (a *AtomicPinch) Load(dst *Pinch) bool {
	p := a.p.Load()
	if p == nil {
		return false
	}
	*dst = *p
	return true
}

// Store publishes p with its Seq set to one more than the last stored Seq.
func (a *AtomicPinch) Store(p Pinch) {
	var seq uint64
	if old := a.p.Load(); old != nil {
		seq = old.Seq
	}
	p.Seq = seq + 1
	a.p.Store(&p)
}

// Limits of the mouse pair: a box around the scene's cloth, so a runaway
// drag cannot send the simulated fingers anywhere unreasonable.
var (
	pinchMin = vec3{-0.25, -0.10, -0.10}
	pinchMax = vec3{0.25, 0.45, 0.10}
)

func clampPinch(p vec3) vec3 {
	for i := range p {
		p[i] = math.Max(pinchMin[i], math.Min(pinchMax[i], p[i]))
	}
	return p
}
