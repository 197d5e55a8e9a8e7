package render_test

import (
	"context"
	"log"
	"os"

	"github.com/haptex/haptex/render"
	"github.com/haptex/haptex/sim"
)

// A view of a running rig: the window draws the latest state once per
// frame, and the haptics loop reads the mouse finger pair every tick.
func ExampleWindow() {
	th := render.StartThread()
	defer th.Stop()
	w, err := render.NewWindow(th, render.Config{Weave: render.Weave{Pattern: render.Twill}})
	if err != nil {
		log.Fatal(err) // wraps render.ErrNoDisplay without a screen
	}
	defer w.Close()

	go func() { // in the rig: each haptics tick
		var p render.Pinch
		if w.Pinch().Load(&p) && p.Active {
			thumb, index := p.PadCentres(0.008)
			_, _ = thumb, index // targets for the simulated fingers
		}
	}()

	var topo sim.Topology // handed over once by the simulation
	var snap sim.Snapshot // the latest slot of its snapshot buffer
	err = w.Run(context.Background(), func(dst *render.Frame) {
		dst.Topology, dst.Snapshot = &topo, &snap
		dst.Overlay.Fabric = "cotton poplin"
	})
	if err != nil {
		log.Print(err)
	}
}

// haptex snapshot: one frame to a PNG file, no window shown.
func ExampleSnapshot() {
	var f render.Frame // filled from the current or a recorded state
	out, err := os.Create("showcase.png")
	if err != nil {
		log.Fatal(err)
	}
	defer out.Close()
	if err := render.Snapshot(out, render.Config{Width: 1280, Height: 720}, &f, "png"); err != nil {
		log.Fatal(err)
	}
}
