// Package filter designs and runs IIR filters: Butterworth and Chebyshev
// type I, realised as second-order sections.
//
// It never imports device, simulation or rendering code.
package filter
