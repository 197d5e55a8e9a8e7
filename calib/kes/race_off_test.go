//go:build !race

package kes

const raceEnabled = false
