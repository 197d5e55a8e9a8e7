//go:build race

package experiment

// raceEnabled shortens the tests that handle fabric in virtual time
// under the race detector, which runs the cloth about ten times slower.
const raceEnabled = true
