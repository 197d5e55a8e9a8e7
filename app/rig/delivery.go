package rig

import "github.com/haptex/haptex/devices"

// Delivery accounting: what a finger's array measured its pins delivering
// over a run, each measurement paired with the frame it is of.
const (
	// DrivenUm is the amplitude from which a pin counts as driven in a
	// band [µm peak]: far above what a vibrometer or a pin's pickup
	// resolves, and below the fabric's rendered amplitudes.
	DrivenUm = 0.5
	// stillFraction is the share of what was sent under which a driven
	// pin counts as still in a frame.
	stillFraction = 0.1
	// stillMinFrames is how many frames a pin must have been driven in
	// before it can be called still.
	stillMinFrames = 5
)

// DeliverySummary is what a finger's array measured its pins delivering
// over a run, against what the rig sent them, each measurement paired with
// the frame it is of (devices.TactileFrame.Seq).
type DeliverySummary struct {
	// Frames counts the frames paired with their measurement; Unpaired
	// the frames written that were not (no measurement of their own
	// came, or the array lost it). The run's last frame, whose row no
	// later frame measures, is in neither.
	Frames   int `json:"frames"`
	Unpaired int `json:"unpaired"`
	// SentUm and DeliveredUm sum, per band (40 Hz, 320 Hz), the
	// amplitudes sent to the pins driven in that band (DrivenUm or more,
	// as the record says in DrivenUm) and what those pins delivered [µm].
	DrivenUm    float64    `json:"driven_um"`
	SentUm      [2]float64 `json:"sent_um"`
	DeliveredUm [2]float64 `json:"delivered_um"`
	// StillPins lists the pins driven in at least 5 frames that
	// delivered under a tenth of what was sent in more than half of them:
	// a dead pin, a broken contactor, a torn lead.
	StillPins []int `json:"still_pins,omitempty"`
}

// Ratio returns DeliveredUm/SentUm in band b (0: 40 Hz, 1: 320 Hz), and
// false when no pin was driven in it.
func (d *DeliverySummary) Ratio(b int) (float64, bool) {
	if d.SentUm[b] <= 0 {
		return 0, false
	}
	return d.DeliveredUm[b] / d.SentUm[b], true
}

// deliveryAccount accumulates a finger's DeliverySummary on the tactile
// goroutine without allocating. It keeps the frame before the newest
// sent, since a device array's measurement of a frame comes after the
// next frame.
type deliveryAccount struct {
	sum      DeliverySummary
	last     uint32               // Seq of the newest frame paired (0: none)
	prev     devices.TactileFrame // the frame written before the newest
	driven   [devices.Pins]int
	still    [devices.Pins]int
	frames   int  // frames written whose row has been measured
	measured bool // the array has given a measurement
}

// add pairs measurement d (of frame d.Seq) with the frame it is of: cur,
// the newest written, or the one before.
func (a *deliveryAccount) add(d, cur *devices.TactileFrame) {
	a.measured = true
	var sent *devices.TactileFrame
	switch {
	case d.Seq == a.last || d.Seq == 0:
		return // counted, or of no frame
	case d.Seq == cur.Seq:
		sent = cur
	case d.Seq == a.prev.Seq:
		sent = &a.prev
	default:
		return // of a frame this account no longer holds
	}
	a.last = d.Seq
	a.sum.Frames++
	for p := range devices.Pins {
		bands := [2][2]float64{{sent.A40Um[p], d.A40Um[p]}, {sent.A320Um[p], d.A320Um[p]}}
		driven, still := false, true
		for b, v := range bands {
			if v[0] < DrivenUm {
				continue
			}
			driven = true
			a.sum.SentUm[b] += v[0]
			a.sum.DeliveredUm[b] += v[1]
			if v[1] >= stillFraction*v[0] {
				still = false
			}
		}
		if driven {
			a.driven[p]++
			if still {
				a.still[p]++
			}
		}
	}
}

// next moves on from frame cur once its row's measurement has been read
// (after add): it becomes the frame before. written says whether the
// array took it.
func (a *deliveryAccount) next(cur *devices.TactileFrame, written bool) {
	a.prev = *cur
	if written {
		a.frames++
	}
}

// summary returns the account, nil when the array measured nothing.
func (a *deliveryAccount) summary() *DeliverySummary {
	if !a.measured {
		return nil
	}
	s := a.sum
	s.DrivenUm = DrivenUm
	s.Unpaired = max(0, a.frames-s.Frames)
	for p := range devices.Pins {
		if a.driven[p] >= stillMinFrames && 2*a.still[p] > a.driven[p] {
			s.StillPins = append(s.StillPins, p)
		}
	}
	return &s
}
