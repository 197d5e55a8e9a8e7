package filter_test

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/haptex/haptex/haptics/filter"
)

func ExampleButterworth() {
	// The force loop's filter: 2nd-order low-pass at 30 Hz, 1 kHz servo.
	s, err := filter.Butterworth(2, filter.LowPass, 1000, 30)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range s {
		fmt.Printf("b = [%.10f %.10f %.10f]  a = [1 %.10f %.10f]\n", c.B0, c.B1, c.B2, c.A1, c.A2)
	}
	fmt.Printf("|H(30 Hz)| = %.2f dB\n", 20*math.Log10(cmplx.Abs(s.Response(30, 1000))))
	// Output:
	// b = [0.0078202080 0.0156404161 0.0078202080]  a = [1 -1.7347257688 0.7660066009]
	// |H(30 Hz)| = -3.01 dB
}

func ExampleChebyshevI() {
	// The velocity loop's filter: 3rd-order, 1 dB ripple, 100 Hz.
	s, err := filter.ChebyshevI(3, 1, filter.LowPass, 1000, 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range s {
		// SciPy pads the odd order with a pole and a zero at the origin,
		// in different sections; + 0 prints its -0 as 0.
		fmt.Printf("b = [%.10f %.10f %.10f]  a = [1 %.10f %.10f]\n", c.B0, c.B1, c.B2+0, c.A1, c.A2+0)
	}
	for _, p := range s.Poles() {
		fmt.Printf("pole %.4f, |p| = %.4f\n", p, cmplx.Abs(p))
	}
	// Output:
	// b = [0.0114746569 0.0229493138 0.0114746569]  a = [1 -0.7232974331 0.0000000000]
	// b = [1.0000000000 1.0000000000 0.0000000000]  a = [1 -1.4144924878 0.7462467468]
	// pole (0.7233+0.0000i), |p| = 0.7233
	// pole (0.7072+0.4960i), |p| = 0.8639
	// pole (0.7072-0.4960i), |p| = 0.8639
}

func ExampleChebyshevI_errors() {
	_, err := filter.ChebyshevI(3, 1, filter.LowPass, 1000, 600)
	fmt.Println(err)
	_, err = filter.Butterworth(2, filter.BandPass, 1000, 60, 20)
	fmt.Println(err)
	_, err = filter.ChebyshevI(9, -1, filter.LowPass, 1000, 30)
	fmt.Println(err)
	// Output:
	// filter: corner 600 Hz outside (0, 500) Hz, the Nyquist range at 1000 Hz sampling: invalid design parameter
	// filter: band-pass corners (60, 20) Hz must be increasing: invalid design parameter
	// filter: order 9 not in [1, 8]: invalid design parameter
}

func ExampleFilter_SetSteady() {
	// A force signal that rests at a 50 mN sensor bias, then steps by 1 N.
	s, err := filter.Butterworth(2, filter.LowPass, 1000, 30)
	if err != nil {
		fmt.Println(err)
		return
	}
	f := filter.New(s)
	f.SetSteady(0.05) // no start-up transient from 0 to the bias
	peak := 0.0
	for n := 0; n < 200; n++ {
		y := f.Step(1.05)
		peak = math.Max(peak, y)
		if n == 0 || n == 9 || n == 19 || n == 49 || n == 199 {
			fmt.Printf("t = %3d ms: %.4f N\n", n+1, y)
		}
	}
	fmt.Printf("overshoot %.2f %%\n", 100*(peak-1.05))
	// Output:
	// t =   1 ms: 0.0578 N
	// t =  10 ms: 0.6971 N
	// t =  20 ms: 1.0764 N
	// t =  50 ms: 1.0483 N
	// t = 200 ms: 1.0500 N
	// overshoot 4.38 %
}

// The group delays tabulated in the package documentation.
func ExampleSOS_GroupDelay() {
	const fs = 1000.0
	row := func(name string, s filter.SOS, fc float64) {
		deg := func(f float64) float64 { return cmplx.Phase(s.Response(f, fs)) * 180 / math.Pi }
		fmt.Printf("%-30s %5.2f %5.2f %5.2f %6.2f   %6.1f %6.1f\n", name,
			1e3*s.GroupDelay(0, fs), 1e3*s.GroupDelay(10, fs), 1e3*s.GroupDelay(30, fs), 1e3*s.GroupDelay(fc, fs),
			deg(10), deg(30))
	}
	fmt.Println("low-pass at 1 kHz sampling      τ(0) τ(10) τ(30)  τ(fc) ms   φ(10)  φ(30) deg")
	for _, fc := range []float64{30, 50, 100} {
		s, _ := filter.Butterworth(2, filter.LowPass, fs, fc)
		row(fmt.Sprintf("Butterworth 2, %g Hz", fc), s, fc)
	}
	for _, rp := range []float64{0.5, 1} {
		for _, fc := range []float64{50, 100, 200} {
			s, _ := filter.ChebyshevI(3, rp, filter.LowPass, fs, fc)
			row(fmt.Sprintf("Chebyshev I 3, %g dB, %g Hz", rp, fc), s, fc)
		}
	}
	// Output:
	// low-pass at 1 kHz sampling      τ(0) τ(10) τ(30)  τ(fc) ms   φ(10)  φ(30) deg
	// Butterworth 2, 30 Hz            7.48  8.22  7.55   7.55    -27.9  -90.0
	// Butterworth 2, 50 Hz            4.46  4.64  5.42   4.58    -16.3  -52.7
	// Butterworth 2, 100 Hz           2.18  2.20  2.36   2.41     -7.9  -24.2
	// Chebyshev I 3, 0.5 dB, 50 Hz    6.77  6.48  6.61  11.98    -24.0  -69.0
	// Chebyshev I 3, 0.5 dB, 100 Hz   3.30  3.26  3.07   6.30    -11.8  -34.7
	// Chebyshev I 3, 0.5 dB, 200 Hz   1.48  1.47  1.46   3.89     -5.3  -15.9
	// Chebyshev I 3, 1 dB, 50 Hz      7.96  7.26  6.92  14.34    -27.7  -75.2
	// Chebyshev I 3, 1 dB, 100 Hz     3.88  3.79  3.31   7.54    -13.9  -39.5
	// Chebyshev I 3, 1 dB, 200 Hz     1.73  1.73  1.68   4.66     -6.2  -18.5
}
