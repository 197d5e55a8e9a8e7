package tactile

import (
	"math"
	"math/cmplx"
	"testing"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/mat"
)

// deliveredExcitation synthesises the two-sine stimulus with Synth for
// 0.5 s, measures its 40 Hz and 320 Hz lines with an FFT over the last
// 0.25 s (whole cycles of both) and returns the excitation they produce
// through the drive thresholds d.
func deliveredExcitation(t *testing.T, d DriveThresholds, a40, a320 float64) [NumChannels]float64 {
	t.Helper()
	const fs, n = 8000, 4000
	s, err := NewSynth(fs, 1, 0.025, n)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float32, n)
	s.Render(w, 0, []float64{a40}, []float64{a320})
	x := make([]float64, n/2)
	for i := range x {
		x[i] = float64(w[n/2+i])
	}
	c := fourier.NewFFT(len(x)).Coefficients(nil, x)
	line := func(f int) float64 { return 2 * cmplx.Abs(c[f*len(x)/fs]) / float64(len(x)) }
	l40, l320 := line(F40), line(F320)
	w2 := func(db float64) float64 { return math.Pow(10, -db/10) }
	return [NumChannels]float64{
		NonPacinian: l40*l40*w2(d.NP40) + l320*l320*w2(d.NP320),
		Pacinian:    l40*l40*w2(d.P40) + l320*l320*w2(d.P320),
	}
}

// nonNegativeSolutionExists solves the 2 x 2 metamer system with gonum's
// LU, independently of solveMetamer's closed form.
func nonNegativeSolutionExists(t *testing.T, d DriveThresholds, e [NumChannels]float64) bool {
	t.Helper()
	m := d.matrix()
	a := mat.NewDense(2, 2, []float64{m[0][0], m[0][1], m[1][0], m[1][1]})
	var x mat.VecDense
	if err := x.SolveVec(a, mat.NewVecDense(2, e[:])); err != nil {
		t.Fatal(err)
	}
	return x.AtVec(0) >= 0 && x.AtVec(1) >= 0
}

// The two-sine metamer reproduces both channel excitations of the
// broadband input within 0.5 dB wherever a non-negative solution exists.
// The broadband excitations come from SciPy's brute-force integration of a
// 2D spectrum (testdata/reference.py) and from the renderer on the test
// fabrics; the delivered ones from synthesising the sines and measuring
// them with an FFT.
func TestMetamerReproducesBroadband(t *testing.T) {
	type input struct {
		name string
		e    [NumChannels]float64
		d    DriveThresholds
		m    Metamer
	}
	var inputs []input
	ref := ReferenceChannels()
	for _, st := range loadReference(t).Excitation.Strokes {
		inputs = append(inputs, input{"reference spectrum", st.E, ref.Drive, SolveMetamer(ref.Drive, st.E)})
	}
	user, _ := ref.WithUserThresholds(ref.Drive.NP40+4, ref.Drive.P320-3)
	for _, name := range []string{"silk", "twill", "knit", "nonwoven"} {
		r := renderer(t, surface(t, name))
		if err := r.SetCalibration(fThumb, Calibration{Channels: user}); err != nil {
			t.Fatal(err)
		}
		for _, speed := range []float64{0.003, 0.01, 0.03, 0.1, 0.3} {
			for _, deg := range []float64{0, 60, 90} {
				for _, f := range []int{fThumb, fIndex} {
					fr := stroke(r, f, deg*math.Pi/180, speed)
					d := ref.Drive
					if f == fThumb {
						d = user.Drive
					}
					inputs = append(inputs, input{name, fr.Excitation, d, Metamer{fr.A40, fr.A320, fr.Exact}})
				}
			}
		}
	}
	var exact, constrained int
	var worst float64
	for _, in := range inputs {
		exists := nonNegativeSolutionExists(t, in.d, in.e)
		if exists != in.m.Exact {
			t.Errorf("%s e=%v: Exact = %v, but a non-negative solution exists: %v", in.name, in.e, in.m.Exact, exists)
		}
		got := deliveredExcitation(t, in.d, in.m.A40, in.m.A320)
		if !exists {
			constrained++
			// NNLS: the 40 Hz sine alone already over-drives P; the
			// compromise splits the error between the channels.
			if !(got[NonPacinian] <= in.e[NonPacinian]*1.0001 && got[Pacinian] >= in.e[Pacinian]*0.9999) {
				t.Errorf("%s e=%v: constrained metamer delivers %v; want NP I at most and P at least the target", in.name, in.e, got)
			}
			continue
		}
		exact++
		for c := range NumChannels {
			d := dB(got[c], in.e[c])
			worst = math.Max(worst, math.Abs(d))
			if math.Abs(d) > 0.5 {
				t.Errorf("%s: channel %d target %.4g, the synthesised metamer delivers %.4g (%.3f dB)", in.name, c, in.e[c], got[c], d)
			}
		}
	}
	t.Logf("%d inputs with a non-negative solution: largest error %.2g dB; %d without", exact, worst, constrained)
	if exact < 50 || constrained == 0 {
		t.Errorf("want many exact and some constrained inputs, have %d and %d", exact, constrained)
	}
}

// When both channels ask for nothing, nothing is rendered; when only P
// asks, only 320 Hz plays.
func TestSolveMetamerEdges(t *testing.T) {
	d := ReferenceChannels().Drive
	if m := SolveMetamer(d, [2]float64{}); m.A40 != 0 || m.A320 != 0 || !m.Exact {
		t.Errorf("zero excitation: %+v", m)
	}
	m := SolveMetamer(d, [2]float64{0, 10})
	if m.A40 != 0 || !(m.A320 > 0) {
		t.Errorf("P-only excitation: %+v", m)
	}
	m = SolveMetamer(d, [2]float64{10, 0})
	if !(m.A40 > 0) || m.A320 != 0 || m.Exact {
		t.Errorf("NP-only excitation: %+v", m)
	}
}

// Metamer is a two-sine stimulus A40 sin(2π 40 t) + A320 sin(2π 320 t).
type Metamer struct {
	A40, A320 float64 // [µm peak], >= 0
	// Exact is true when the two sines reproduce both channel excitations:
	// a non-negative solution existed.
	Exact bool
}

// SolveMetamer returns, for the tests, the non-negative amplitudes whose two-sine stimulus,
// through the drive thresholds d, best reproduces the channel excitations e
// (power re threshold, see ChannelModel).
//
// The system is M [A40², A320²]ᵀ = e with M[c] = (W_c(40)², W_c(320)²). When
// its solution is non-negative it is returned exactly. Otherwise (a fabric
// so rich in low frequencies that the 40 Hz sine needed for NP I already
// over-drives P through the cross term M[P][0]) the problem is solved as
// non-negative least squares in relative error, each channel's residual
// divided by its target, so that the compromise splits the error in dB
// rather than favouring the numerically larger channel.
func SolveMetamer(d DriveThresholds, e [NumChannels]float64) Metamer {
	x, y, exact := solveMetamer(d.matrix(), e)
	return Metamer{A40: math.Sqrt(x), A320: math.Sqrt(y), Exact: exact}
}
