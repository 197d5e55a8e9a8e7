package render

import (
	"time"

	"github.com/haptex/haptex/sim"
)

// PinsPerArray is the number of pins of one tactile array: 6 rows of 4,
// 2 mm pitch, pin index row*4 + col, row 0 distal.
const (
	PinRows      = 6
	PinCols      = 4
	PinsPerArray = PinRows * PinCols
)

// Frame is everything one picture shows. The renderer only reads it.
type Frame struct {
	// Topology is the cloth's fixed connectivity and rest coordinates. The
	// renderer uploads it again only when the pointer (or its size)
	// changes, so keep one Topology per mesh. nil draws no cloth.
	Topology *sim.Topology
	// Snapshot is the cloth's current shape; nil draws no cloth. It must
	// match Topology (3 values per node in Pos and Normal) and hold finite
	// numbers, else the renderer keeps the last good shape and says why in
	// the overlay.
	Snapshot *sim.Snapshot
	Fingers  sim.FingerState // pads at Fingers[i].Pos, force arrows from Fingers[i].Force
	Sim      sim.Output      // contact patches from Sim.Contact
	// A40 and A320 are the pin amplitudes [µm peak] of each finger's array
	// (indexed by sim.Thumb, sim.IndexFinger, then pin row*4 + col).
	A40, A320 [sim.NumFingers][PinsPerArray]float64
	Overlay   Overlay
}

// Overlay is the text the view prints over the scene.
type Overlay struct {
	Fabric string       // fabric name
	Loops  [4]LoopStats // one line per loop whose Name is not empty
}

// LoopStats is one loop's health as the overlay shows it.
type LoopStats struct {
	Name        string        // e.g. "haptics"
	RateHz      float64       // measured rate [1/s]
	LatenessP99 time.Duration // 99th percentile of the tick lateness
}

// Source fills dst with the latest state. The window calls it once per
// frame, on its render thread, and draws what it left in dst: dst keeps
// the previous frame's contents, so a source may update only what changed.
// A Source must not block (read the loops' latest-value buffers, never wait
// for them), and what dst.Snapshot and dst.Topology point to must not be
// written until the next call.
type Source func(dst *Frame)
