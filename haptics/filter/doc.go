// Package filter designs and runs IIR filters: Butterworth and Chebyshev
// type I, low-pass, high-pass and band-pass, prototype order 1 to 8,
// realised as cascades of second-order sections (SOS).
//
// It owns the design (Butterworth, ChebyshevI), the zero-allocation runtime
// filter (Filter, one per signal, not safe for concurrent use) and the
// analysis of a cascade (Response, GroupDelay, Poles, DCGain). It never
// imports device, simulation or rendering code, does no I/O and starts no
// goroutines.
//
// # Design
//
// Each design follows the classical route (Oppenheim & Schafer,
// Discrete-Time Signal Processing, 3rd ed., §7.2-7.3; Parks & Burrus,
// Digital Filter Design, ch. 7):
//
//  1. Analog low-pass prototype with cut-off 1 rad/s and poles, for
//     m = -N+1, -N+3, ..., N-1,
//     Butterworth: p_m = -exp(jπm/2N);
//     Chebyshev I: p_m = -sinh(μ + jπm/2N), μ = asinh(1/ε)/N,
//     ε = √(10^(rippleDB/10) - 1), gain ∏(-p_m), divided by √(1+ε²) for
//     even N so that the pass band ripples between 0 and -rippleDB.
//  2. Corners pre-warped, Ω = 2·fs·tan(π f/fs), so that the digital filter
//     has its corners exactly at the requested frequencies.
//  3. Analog frequency transformation: s → s/Ω (low-pass), Ω/s
//     (high-pass), (s² + Ω₀²)/(B s) with Ω₀ = √(Ω₁Ω₂), B = Ω₂ - Ω₁
//     (band-pass, doubling the order).
//  4. Bilinear transform s = 2fs (z-1)/(z+1): zeros at infinity go to
//     z = -1, zeros at the origin to z = 1.
//  5. Pairing into sections as SciPy's zpk2sos with pairing='nearest': the
//     poles closest to the unit circle go to the last section, each pole
//     pair takes its nearest zeros, the overall gain multiplies the first
//     section's numerator.
//
// The steps reproduce scipy.signal.iirfilter (SciPy 1.10) operation for
// operation, so sections compare one to one with butter and cheby1
// (output='sos'): over the committed grid of 736 designs (orders 1-8,
// ripples 0.1, 1 and 3 dB, low-, high- and band-pass at 1 and 10 kHz
// sampling) the largest elementwise relative error is 1.2e-13; see
// testdata/gen_scipy.py. A Chebyshev I corner is where the gain leaves the
// ripple band (-rippleDB), not the -3 dB point.
//
// Bad parameters (order outside 1-8, a corner not strictly between 0 and
// Nyquist, band-pass corners not increasing, a ripple that is not finite
// and positive, NaN anywhere) give an error wrapping ErrParameter that
// names the values. Legal parameters too extreme for float64 (a corner a
// millionth of the sampling rate at order 8) give ErrParameter and
// ErrUnstable rather than a cascade with poles on the unit circle.
//
// # Runtime
//
// Filter runs each section in transposed direct form II (Oppenheim &
// Schafer §6.4), which needs two state values per section and keeps them
// small. Step allocates nothing. SetSteady starts the filter as if its
// input had been constant forever (SciPy's sosfilt_zi), which avoids the
// start-up transient of a filter fed a biased sensor signal. A NaN input
// poisons the state until Reset or SetSteady.
//
// # Group delay
//
// GroupDelay sums the closed-form delay of each zero and pole r·e^{jθ},
// (r² - r cos(ω-θ)) / (1 - 2r cos(ω-θ) + r²) samples (Oppenheim & Schafer
// §5.3), which stays exact next to the zeros on the unit circle where
// SciPy's polynomial formula loses digits. Inside a control loop the delay
// and phase lag of the filter cost phase margin. For the filters the force
// controller is likely to use, at 1 kHz sampling (τ in ms at DC, 10 Hz,
// 30 Hz and the corner fc; phase φ in degrees at 10 and 30 Hz; the table is
// ExampleSOS_GroupDelay's checked output):
//
//	low-pass at 1 kHz sampling      τ(0) τ(10) τ(30)  τ(fc) ms   φ(10)  φ(30) deg
//	Butterworth 2, 30 Hz            7.48  8.22  7.55   7.55    -27.9  -90.0
//	Butterworth 2, 50 Hz            4.46  4.64  5.42   4.58    -16.3  -52.7
//	Butterworth 2, 100 Hz           2.18  2.20  2.36   2.41     -7.9  -24.2
//	Chebyshev I 3, 0.5 dB, 50 Hz    6.77  6.48  6.61  11.98    -24.0  -69.0
//	Chebyshev I 3, 0.5 dB, 100 Hz   3.30  3.26  3.07   6.30    -11.8  -34.7
//	Chebyshev I 3, 0.5 dB, 200 Hz   1.48  1.47  1.46   3.89     -5.3  -15.9
//	Chebyshev I 3, 1 dB, 50 Hz      7.96  7.26  6.92  14.34    -27.7  -75.2
//	Chebyshev I 3, 1 dB, 100 Hz     3.88  3.79  3.31   7.54    -13.9  -39.5
//	Chebyshev I 3, 1 dB, 200 Hz     1.73  1.73  1.68   4.66     -6.2  -18.5
//
// A 2nd-order Butterworth delays low frequencies by about √2/(2π fc)
// (7.5 ms at 30 Hz); a 3rd-order Chebyshev I at the same corner delays
// more and peaks sharply at its corner. Well below the corner the phase
// lag grows about linearly with frequency, 360°·f·τ(0).
package filter
