package sim

// RaceEnabled lets the external tests scale down under the race detector
// as the package's own do.
const RaceEnabled = raceEnabled
