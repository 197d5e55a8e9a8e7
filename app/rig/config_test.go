package rig

import (
	"strings"
	"testing"
	"time"
)

// Periods and priorities a run cannot use are refused in one line before
// anything starts: a 1 ns sim period hung a lockstep run, and priority 100
// panicked in the real-time loop.
func TestConfigRefusesWhatCannotRun(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"sim period 1 ns", Config{SimPeriod: time.Nanosecond}, "sim period"},
		{"sim period 1 h", Config{SimPeriod: time.Hour}, "sim period"},
		{"priority 100", Config{Priority: 100}, "priority"},
		{"priority -1", Config{Priority: -1}, "priority"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v", err)
			}
		})
	}
}
