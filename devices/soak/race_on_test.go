//go:build race

package soak

// raceEnabled: the emulated physics runs about ten times slower under the
// race detector, too slow for 1 kHz on a shared machine.
const raceEnabled = true
