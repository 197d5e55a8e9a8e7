// Package haptics owns the 1 kHz force-feedback servo: evaluation of the
// cloth's LocalModel at the measured fingertips, the explicit force
// controller, the safety envelope and the passivity observer.
//
// It never calls the simulation and never blocks: it reads the latest
// simulation output from a lock-free buffer and talks to devices through the
// devices interfaces.
package haptics
