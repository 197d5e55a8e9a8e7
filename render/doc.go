// Package render draws the haptex scene with OpenGL 4.1 core, in a window
// or offscreen, and turns the mouse into a finger pair. It owns the view:
// the cloth (smooth normals, both faces lit, a procedural weave from the
// fabric's warp and weft colours and yarn spacing), the stand rod, both
// fingertip pads with their force arrows, the contact patches, two 6 x 4
// insets with the A40 and A320 of every pin, and a text overlay. It never
// runs, steps or waits for a loop: it draws whatever state it is handed.
//
// # Using it
//
// All GLFW and GL work happens on one Thread (StartThread, or NewThread and
// Run on the main goroutine where the platform wants the main thread).
//
//	th := render.StartThread()
//	w, err := render.NewWindow(th, render.Config{Weave: weave})
//	go rig.DriveFingers(w.Pinch()) // Load(&p) each haptics tick
//	err = w.Run(ctx, func(dst *render.Frame) { /* copy the latest state */ })
//	w.Close()
//
// Offscreen renders images with no visible window (Snapshot writes one
// PNG); both need a display, which Probe checks (on a machine without a
// screen, run under Xvfb: scripts/with-display). The window draws at its
// own rate, at most Config.MaxFPS, and calls its Source once per frame;
// nothing it does blocks the haptics, simulation or tactile loops.
//
// # Conventions
//
// World frame as in the showcase scene: metres, y up, the cloth at rest in
// z = 0 hanging from the rod at y = 0.30, the thumb on the -z side, the
// index on the +z side. Fabric coordinates (u, v) [m] on the undeformed
// cloth, u along the weft. Pin amplitudes in µm peak, pin index row*4+col,
// row 0 distal. Colours are sRGB; shading works in linear light and encodes
// with gamma 2 (a square root per pixel, not three pows: the frame budget
// on llvmpipe is tight).
//
// # Invariants
//
// The renderer reads a Frame and never writes it or keeps pointers into it
// past the next frame. Bad input is drawn around, never fatal: a snapshot
// that does not fit its topology or holds NaN keeps the last good shape
// and says so in the overlay; an invalid or non-finite finger is not drawn;
// a NaN pin amplitude shows magenta. Drawing a frame allocates nothing.
// Every GL call goes through render/internal/glw; built with the
// haptexgldebug tag, each call is checked with glGetError.
package render
