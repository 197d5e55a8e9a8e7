//go:build race

package kes

// raceEnabled scales the long tests down under the race detector, which
// runs numerical code about ten times slower.
const raceEnabled = true
