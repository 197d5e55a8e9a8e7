//go:build !linux

package soak

import "time"

// sleepUntil sleeps to an absolute deadline (portable fallback).
func sleepUntil(t time.Time) { time.Sleep(time.Until(t)) }
