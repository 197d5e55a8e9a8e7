// Package twin holds the simulated twins of the devices: scripted fingertips
// and the physical models of the exoskeleton, the finger and the tactile
// array.
package twin
