package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
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
	script := fs.String("script", "showcase", "handling script to play: "+strings.Join(rig.Handlings, ", ")+" (fold and crumple with the fingertips on the script's path, no exoskeletons)")
	at := fs.Duration("at", 0, "time into the handling script to render (default: the showcase's stretch, held, 8.2 s; the fold pressed flat, 3.7 s; the crumple's pile pressed, 3.3 s)")
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
	if *at == 0 {
		*at = snapshotAt[*script]
	}
	if *at <= 0 {
		return fmt.Errorf("%w: -at must be positive", errUsage)
	}
	if !slices.Contains(rig.Handlings, *script) {
		return fmt.Errorf("%w: -script %q: want %s", errUsage, *script, strings.Join(rig.Handlings, ", "))
	}
	if *frame != "hand" && *frame != "stand" {
		return fmt.Errorf("%w: -frame %q: want hand or stand", errUsage, *frame)
	}
	if *width < minSnapshotPx || *width > maxSnapshotPx || *height < minSnapshotPx || *height > maxSnapshotPx {
		return fmt.Errorf("%w: -width %d -height %d: each must be %d to %d px", errUsage, *width, *height, minSnapshotPx, maxSnapshotPx)
	}
	if !(*magnify >= 1 && *magnify <= maxMagnify) {
		return fmt.Errorf("%w: -magnify %g: want 1 (true scale) to %g", errUsage, *magnify, float64(maxMagnify))
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
	cfg, f, err := snapshotScene(fab, *script, *at, 0)
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
	fmt.Printf("wrote %s (%s, %s at %v of the %s script)\n", *outPath, strings.ToUpper(format), fab.Name, *at, *script)
	return nil
}

// defaultSnapshotAt is when the showcase script holds its stretch: the
// pads pinch the cloth and have pulled it 3 cm out of its plane.
const defaultSnapshotAt = 8200 * time.Millisecond

// snapshotAt is each handling's default moment: the showcase's stretch,
// the fold pressed flat between the pads (sim.FoldScript: 0.7 s lift,
// 2 s turn, pinch by 3.2 s, held to 3.7 s), the crumple's pile pressed
// (sim.CrumpleScript: pushed up by 3 s, held to 3.5 s).
var snapshotAt = map[string]time.Duration{
	"showcase": defaultSnapshotAt,
	"fold":     3700 * time.Millisecond,
	"crumple":  3300 * time.Millisecond,
}

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

// The snapshot's size: a few pixels show nothing one could read, and a
// frame of 8192 px a side is already 256 MiB of pixels, multisampled
// several times over. Magnified beyond 1000 times, one yarn crosses the
// swatch.
const (
	minSnapshotPx = 16
	maxSnapshotPx = 8192
	maxMagnify    = 1000
)

// snapshotScene runs the handling script with fab in virtual time to at,
// on a cloth of side nodes a side (0: the rig's default), and returns the
// view's configuration and the frame it shows then.
func snapshotScene(fab *kes.Fabric, script string, at time.Duration, side int) (render.Config, *render.Frame, error) {
	// The sim scenes start a finger on the side of the cloth the
	// exoskeletons' fingers cannot reach: their fingertips follow the
	// script exactly.
	r, err := rig.New(rig.Config{Duration: at, Fabric: fab, Handling: script, Scripted: script != "showcase",
		Sim: sim.Config{NodesU: side, NodesV: side}})
	if err != nil {
		return render.Config{}, nil, err
	}
	// The script holds its last pose after its end: a later time would
	// only simulate longer (an hour of cloth takes hours).
	if end := r.Config().Script.Duration(); at > end {
		return render.Config{}, nil, fmt.Errorf("%w: -at %v is past the end of the %s script (%v)", errUsage, at, script, end)
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
