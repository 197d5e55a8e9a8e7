package main

import (
	"bytes"
	"fmt"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/render"
)

func init() {
	register(&command{name: "snapshot", summary: "render the showcase scene to a PNG without a window", run: runSnapshot})
}

func runSnapshot(args []string) error {
	fs := newFlags("snapshot", "snapshot -o FILE.png [flags]")
	outPath := fs.String("o", "", "PNG file to write (required)")
	at := fs.Duration("at", 7200*time.Millisecond, "time into the showcase handling script to render (default: mid-stretch)")
	fabric := fs.String("fabric", rig.DefaultFabric, "fabric to handle (haptex fabric list)")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	width := fs.Int("width", 1280, "image width [px]")
	height := fs.Int("height", 720, "image height [px]")
	magnify := fs.Float64("magnify", 6, "draw the yarns this many times coarser so the weave reads at overview distance")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if *outPath == "" {
		return fmt.Errorf("%w: -o FILE.png is required", errUsage)
	}
	if *at <= 0 {
		return fmt.Errorf("%w: -at must be positive", errUsage)
	}
	fab, err := kes.Library{Dir: *library}.Load(*fabric)
	if err != nil {
		return err
	}
	r, err := rig.New(rig.Config{Duration: *at, Fabric: fab})
	if err != nil {
		return err
	}
	v := r.NewView()
	if _, err := r.RunLockstep(); err != nil {
		return err
	}
	cfg, err := renderConfig(v)
	if err != nil {
		return err
	}
	cfg.Width, cfg.Height = *width, *height
	cfg.Weave.Magnify = *magnify
	var frame render.Frame
	(&frameSource{v: v}).fill(&frame)
	var png bytes.Buffer
	if err := render.Snapshot(&png, cfg, &frame); err != nil {
		return err
	}
	if err := safefile.WriteFile(*outPath, png.Bytes()); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%s at %v of the showcase script)\n", *outPath, fab.Name, *at)
	return nil
}
