//go:build race

package main

// raceEnabled scales the long device tests down under the race detector,
// which runs the cloth about five times slower.
const raceEnabled = true
