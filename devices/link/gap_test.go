package link

import (
	"testing"
	"time"
)

func TestHeldOnTheWay(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	for _, c := range []struct {
		name              string
		wait, dev, period time.Duration
		held              bool
	}{
		{"exoskeleton's samples held in the tty", ms(47.65), ms(2.48), ms(1), true},
		{"array on time by its clock, held 2 ms", ms(4.29), ms(2.26), ms(2), true},
		{"array late by 0.3 ms, held 3.8 ms", ms(6.02), ms(2.26), ms(2), true},
		{"exoskeleton stopped for 9 ms", ms(10), ms(9.5), ms(1), false},
		{"array stopped for 6 ms", ms(8.2), ms(8), ms(2), false},
		{"as late as held: the device", ms(6), ms(4), ms(2), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := heldOnTheWay(c.wait, c.dev, c.period); got != c.held {
				t.Fatalf("heldOnTheWay(%v, %v, %v) = %v, want %v", c.wait, c.dev, c.period, got, c.held)
			}
		})
	}
}
