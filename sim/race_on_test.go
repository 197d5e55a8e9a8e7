//go:build race

package sim

// raceEnabled scales the long tests down under the race detector, which
// runs numerical code about ten times slower.
const raceEnabled = true
