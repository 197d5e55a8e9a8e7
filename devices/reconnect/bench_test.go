package reconnect_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/emu"
	"github.com/haptex/haptex/devices/emu/emutest"
	"github.com/haptex/haptex/devices/reconnect"
	"github.com/haptex/haptex/devices/wire"
)

// BenchmarkUnplugReplug pulls and replugs the emulated exoskeleton's cable
// b.N times while a 1 kHz loop runs, and reports how long the loop took to
// see ErrDisconnected after the unplug (detect) and to get fresh, enabled,
// acknowledging samples after the replug (back), in milliseconds.
func BenchmarkUnplugReplug(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	em, err := emu.Run(ctx, emu.Config{NewExo: emutest.StandInExo, Devices: []emu.DeviceConfig{{Name: "exo", Kind: wire.KindExo, WatchdogMs: 1000}}})
	if err != nil {
		b.Skip(err)
	}
	defer em.Close()
	plug := em.Plug("exo")
	x, err := reconnect.NewExo("exo", openExo(plug.Path()), reconnect.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	x.Enable(true)
	var st devices.ExoState
	cmd := devices.ExoCommand{}
	tick := func() error {
		time.Sleep(time.Millisecond)
		err := x.Read(&st)
		if err == nil || errors.Is(err, devices.ErrTimeout) {
			cmd.Seq++
			_ = x.Write(&cmd)
		}
		return err
	}
	var detect, back []float64
	for b.Loop() {
		for range 50 {
			tick()
		}
		t0 := time.Now()
		plug.Unplug()
		for !errors.Is(tick(), devices.ErrDisconnected) {
		}
		detect = append(detect, float64(time.Since(t0))/1e6)
		for range 20 {
			tick()
		}
		t1 := time.Now()
		sent := cmd.Seq
		plug.Replug()
		for {
			if err := tick(); err == nil && !st.Stale && st.Enabled && st.AckSeq > sent {
				break
			}
			if time.Since(t1) > 10*time.Second {
				b.Fatal("not back after 10 s")
			}
		}
		back = append(back, float64(time.Since(t1))/1e6)
	}
	slices.Sort(detect)
	slices.Sort(back)
	b.ReportMetric(detect[len(detect)/2], "detect_p50_ms")
	b.ReportMetric(detect[len(detect)-1], "detect_max_ms")
	b.ReportMetric(back[len(back)/2], "back_p50_ms")
	b.ReportMetric(back[len(back)-1], "back_max_ms")
}
