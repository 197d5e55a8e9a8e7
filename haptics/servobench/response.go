package servobench

import (
	"fmt"
	"math"
	"math/cmplx"
	"time"

	"github.com/haptex/haptex/devices/twin"
	"github.com/haptex/haptex/haptics"
	"github.com/haptex/haptex/internal/vec3"
	"github.com/haptex/haptex/sim"
)

// ResponsePoint is the closed force loop's frequency response in contact
// at one stiffness and frequency: how the force at the fingertip sensor
// follows the force the local model asks for while the model's own force
// (its F0, as a cloth's changes between sim steps) varies as a sine. A
// device that renders the model exactly has gain 1 and phase 0 at every
// frequency, whatever the finger does.
type ResponsePoint struct {
	KNpm     float64 `json:"k_npm"`     // the wall's stiffness along the press [N/m]
	Hz       float64 `json:"hz"`        // frequency of the F0 modulation
	DesMN    float64 `json:"des_mn"`    // amplitude of the desired force along the normal at that frequency [mN]
	Gain     float64 `json:"gain"`      // |measured / desired| along the normal at that frequency
	PhaseDeg float64 `json:"phase_deg"` // phase of measured against desired [°]
}

// Contact-response constants: the modulation is the size of the desired
// force's fluctuation in the showcase's pinch (10-20 mN at 3-25 Hz), on a
// press of 0.14 N, the showcase's mean pinch force.
const (
	responseAmpN   = 0.02
	responsePressN = 0.14
)

// runContactResponse measures ResponsePoints: the index finger's intent
// presses into a wall of stiffness k until the model asks responsePressN,
// holds still, and from 0.7 s the wall's F0 is modulated along its normal
// by responseAmpN at hz. Gain and phase come from the single-frequency
// Fourier coefficients of the desired and measured normal force over
// whole periods after the first second.
func runContactResponse(cfg haptics.Config, p twin.ExoParams, ks, hzs []float64) ([]ResponsePoint, error) {
	var out []ResponsePoint
	f := sim.IndexFinger
	for _, k := range ks {
		km := springMatrix(k, vec3.Scale(-1, pressDir(f)))
		pad := responsePressN / k
		depth := pad + k*pad/p.Finger.Stiffness
		press := func(t time.Duration) float64 {
			s := math.Min(1, t.Seconds()/0.5)
			return -0.002 + (depth+0.002)*0.5*(1-math.Cos(math.Pi*s))
		}
		for _, hz := range hzs {
			const settle = time.Second
			periods := math.Max(6, math.Ceil(2*hz))
			dur := settle + time.Duration(math.Round(periods/hz*float64(time.Second)))
			r, w, err := wallRig(cfg, p, km, 0, press, dur)
			if err != nil {
				return nil, err
			}
			var gd, gm complex128
			for r.t < dur {
				w.update(r.t, &r.out, &r.in.Local[f], f)
				ph := 2 * math.Pi * hz * r.t.Seconds()
				if r.t >= 700*time.Millisecond {
					r.in.Local[f].F0 = vec3.Add(r.in.Local[f].F0, vec3.Scale(responseAmpN*math.Sin(ph), w.n))
				}
				r.tick()
				if st := r.servo.Status(f); r.t > 400*time.Millisecond && st.State != haptics.StateActive {
					return nil, fmt.Errorf("servobench: contact response at %.0f N/m, %g Hz: finger %v (%v)", k, hz, st.State, st.Reason)
				}
				if r.t > settle {
					e := cmplx.Exp(complex(0, -ph))
					gd += complex(vec3.Dot(r.rec.Fingers[f].ForceDes, w.n), 0) * e
					gm += complex(vec3.Dot(r.rec.Fingers[f].ForceMeas, w.n), 0) * e
				}
			}
			n := float64((dur - settle) / r.period)
			h := gm / gd
			out = append(out, ResponsePoint{
				KNpm: k, Hz: hz, DesMN: 2e3 * cmplx.Abs(gd) / n,
				Gain: cmplx.Abs(h), PhaseDeg: cmplx.Phase(h) * 180 / math.Pi,
			})
		}
	}
	return out, nil
}
