// Package tactile turns a finger's contact with the fabric into per-pin 40 Hz
// and 320 Hz amplitudes for a 6 x 4 vibrotactile array.
//
// It never imports device, simulation or rendering code.
package tactile
