package soak

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/link"
	"github.com/haptex/haptex/devices/serial"
	"github.com/haptex/haptex/devices/wire"
)

// BenchmarkCommandToState times one command's round trip through the
// serial driver, the pseudo-terminal and the emulated exoskeleton: write a
// COMMAND, wait until Read shows the STATE that acknowledges it.
func BenchmarkCommandToState(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	em, err := emu.Run(ctx, emu.Config{Devices: []emu.DeviceConfig{{Name: "thumb-exo", Kind: wire.KindExo, WatchdogMs: 1000}}})
	if err != nil {
		b.Skip(err)
	}
	defer em.Close()
	port, err := serial.Open(em.Plug("thumb-exo").Path(), serial.Options{})
	if err != nil {
		b.Fatal(err)
	}
	x, err := link.DialExo(port, link.Options{SilenceTimeout: time.Minute, StaleTimeout: time.Minute, Limits: link.Limits{MaxExoWatchdog: 10 * time.Second, MaxTactileWatchdog: 10 * time.Second}})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	x.Enable(true)
	var st devices.ExoState
	cmd := devices.ExoCommand{Torque: [3]float64{0.01, 0, 0}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		cmd.Seq = uint32(i + 1)
		if err := x.Write(&cmd); err != nil {
			b.Fatal(err)
		}
		for {
			if err := x.Read(&st); err != nil && err != devices.ErrTimeout {
				b.Fatal(err)
			}
			if st.AckSeq == cmd.Seq {
				break
			}
			runtime.Gosched()
		}
	}
	l := x.Stats().CommandLatency
	b.ReportMetric(l.P50, "p50_us")
	b.ReportMetric(l.P99, "p99_us")
}
