package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/haptex/haptex/app/rig"
	"github.com/haptex/haptex/calib/kes"
	"github.com/haptex/haptex/internal/safefile"
	"github.com/haptex/haptex/render"
	"github.com/haptex/haptex/sim"
)

func init() {
	register(&command{name: "snapshot", summary: "render the showcase scene to a PNG without a window", run: runSnapshot})
}

func runSnapshot(args []string) error {
	fs := newFlags("snapshot", "snapshot -o FILE.png|FILE.jpg [flags]")
	outPath := fs.String("o", "", "image file to write: .png, or .jpg/.jpeg for JPEG (required)")
	at := fs.Duration("at", defaultSnapshotAt, "time into the showcase handling script to render (default: the stretch, held)")
	fabric := fs.String("fabric", rig.DefaultFabric, "fabric to handle (haptex fabric list)")
	library := fs.String("library", defaultLibraryDir(), "user fabric library folder")
	width := fs.Int("width", 1280, "image width [px]")
	height := fs.Int("height", 720, "image height [px]")
	frame := fs.String("frame", "hand", "hand: the finger pair and the cloth between them; stand: the whole stand")
	magnify := fs.Float64("magnify", 1, "draw the yarns this many times coarser than they are (1: true scale)")
	if err := parse(fs, args, 0); err != nil {
		return err
	}
	if *outPath == "" {
		return fmt.Errorf("%w: -o FILE.png is required", errUsage)
	}
	format, err := imageFormat(*outPath)
	if err != nil {
		return err
	}
	if *at <= 0 {
		return fmt.Errorf("%w: -at must be positive", errUsage)
	}
	if *frame != "hand" && *frame != "stand" {
		return fmt.Errorf("%w: -frame %q: want hand or stand", errUsage, *frame)
	}
	stop, err := ensureDisplay()
	if err != nil {
		return err
	}
	defer stop()
	fab, err := kes.Library{Dir: *library}.Load(*fabric)
	if err != nil {
		return err
	}
	cfg, f, err := snapshotScene(fab, *at, 0)
	if err != nil {
		return err
	}
	cfg.Width, cfg.Height = *width, *height
	cfg.Weave.Magnify = *magnify
	if *frame == "stand" {
		cfg.Camera, cfg.NoFollow = render.StandCamera(), true
	}
	var img bytes.Buffer
	if err := render.Snapshot(&img, cfg, f, format); err != nil {
		return err
	}
	if err := safefile.WriteFile(*outPath, img.Bytes()); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%s, %s at %v of the showcase script)\n", *outPath, strings.ToUpper(format), fab.Name, *at)
	return nil
}

// defaultSnapshotAt is when the showcase script holds its stretch: the
// pads pinch the cloth and have pulled it 3 cm out of its plane.
const defaultSnapshotAt = 8200 * time.Millisecond

// imageFormat is the image format a file name asks for.
func imageFormat(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return "png", nil
	case ".jpg", ".jpeg":
		return "jpeg", nil
	}
	return "", fmt.Errorf("%w: %s: write .png or .jpg (JPEG)", errUsage, path)
}

// snapshotScene runs the showcase with fab in virtual time to at, on a
// cloth of side nodes a side (0: the rig's default), and returns the
// view's configuration and the frame it shows then.
func snapshotScene(fab *kes.Fabric, at time.Duration, side int) (render.Config, *render.Frame, error) {
	r, err := rig.New(rig.Config{Duration: at, Fabric: fab, Sim: sim.Config{NodesU: side, NodesV: side}})
	if err != nil {
		return render.Config{}, nil, err
	}
	v := r.NewView()
	if _, err := r.RunLockstep(); err != nil {
		return render.Config{}, nil, err
	}
	cfg, err := renderConfig(v)
	if err != nil {
		return render.Config{}, nil, err
	}
	var f render.Frame
	(&frameSource{v: v}).fill(&f)
	return cfg, &f, nil
}
