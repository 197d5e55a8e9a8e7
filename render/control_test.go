package render

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

const ctlW, ctlH = 1280, 720

func project(t *testing.T, c *controller, p vec3) (float64, float64) {
	t.Helper()
	x, y, ok := c.cam.project(p, c.width, c.height)
	if !ok {
		t.Fatalf("%v behind the camera", p)
	}
	return x, y
}

// Dragging moves the pinch point in its depth plane so that the spot
// grabbed stays under the cursor; the point never jumps to the cursor.
func TestControllerDragFollowsCursor(t *testing.T) {
	c := newController(DefaultCamera(), ctlW, ctlH)
	start := c.pinch.Point
	x, y := project(t, c, start)
	x, y = x+7, y-3 // grab a little off the point
	if c.press(buttonLeft, x, y) {
		t.Error("pressing changed the pinch")
	}
	if c.pinch.Point != start {
		t.Fatalf("press moved the point to %v", c.pinch.Point)
	}
	grab, ok := c.depthHit(x, y, start[2])
	if !ok {
		t.Fatal("no grab point")
	}
	offset := sub(grab, start)
	for _, d := range [][2]float64{{40, 0}, {40, -60}, {-25, 30}} {
		if !c.move(x+d[0], y+d[1]) {
			t.Fatalf("drag by %v did not move the pinch", d)
		}
		px, py := project(t, c, add(c.pinch.Point, offset))
		if math.Hypot(px-(x+d[0]), py-(y+d[1])) > 1e-6 {
			t.Errorf("after a drag by %v the grabbed spot is at (%.3f, %.3f), want (%.3f, %.3f)", d, px, py, x+d[0], y+d[1])
		}
		if c.pinch.Point[2] != start[2] {
			t.Errorf("drag changed the depth to %g", c.pinch.Point[2])
		}
	}
	c.release(buttonLeft)
	before := c.pinch.Point
	if c.move(x+100, y+100) || c.pinch.Point != before {
		t.Error("moving without a button pressed moved the pinch")
	}
}

func TestControllerDragClamped(t *testing.T) {
	c := newController(DefaultCamera(), ctlW, ctlH)
	x, y := project(t, c, c.pinch.Point)
	c.press(buttonLeft, x, y)
	c.move(x+1e5, y-1e5)
	p := c.pinch.Point
	for i := range p {
		if p[i] < pinchMin[i] || p[i] > pinchMax[i] {
			t.Errorf("point %v leaves the box [%v, %v]", p, pinchMin, pinchMax)
		}
	}
}

// Looking along the depth plane, a drag cannot place the point and is
// ignored rather than sending it far away.
func TestControllerGrazingIgnored(t *testing.T) {
	cam := DefaultCamera()
	cam.Yaw = math.Pi / 2 // looking along -x, parallel to the plane z = const
	c := newController(cam, ctlW, ctlH)
	before := c.pinch.Point
	c.press(buttonLeft, 640, 360)
	if c.move(700, 300) || c.pinch.Point != before {
		t.Errorf("a grazing drag moved the point to %v", c.pinch.Point)
	}
}

func TestControllerWheelAndKeys(t *testing.T) {
	c := newController(DefaultCamera(), ctlW, ctlH)
	z0, d0 := c.pinch.Point[2], c.cam.Distance
	if !c.scroll(3, false) {
		t.Fatal("wheel did not change the pinch")
	}
	if got, want := c.pinch.Point[2], z0-3*depthStep; math.Abs(got-want) > 1e-12 {
		t.Errorf("3 notches: depth %g, want %g", got, want)
	}
	if c.scroll(2, true) || math.Abs(c.cam.Distance-d0*zoomStep*zoomStep) > 1e-12 {
		t.Errorf("zoom: distance %g, want %g", c.cam.Distance, d0*zoomStep*zoomStep)
	}
	if c.scroll(math.NaN(), false) {
		t.Error("a NaN scroll changed the pinch")
	}
	if !c.do(actTogglePinch) || !c.pinch.Closed {
		t.Error("space did not close the pinch")
	}
	if !c.do(actDepthOut) {
		t.Error("] did not move the pinch")
	}
	y0 := c.cam.Yaw
	c.do(actOrbitRight)
	if math.Abs(c.cam.Yaw-y0-orbitStep) > 1e-12 {
		t.Errorf("orbit: yaw %g, want %g", c.cam.Yaw, y0+orbitStep)
	}
	c.press(buttonRight, 100, 100)
	c.move(150, 100)
	c.release(buttonRight)
	if c.cam.Yaw == y0+orbitStep {
		t.Error("right drag did not orbit")
	}
	if !c.do(actReset) || c.pinch != DefaultPinch() || c.cam != DefaultCamera() {
		t.Errorf("reset left pinch %+v camera %+v", c.pinch, c.cam)
	}
	if c.do(actReset) {
		t.Error("a second reset reported a change")
	}
	for i := 0; i < 1000; i++ {
		c.do(actDepthIn)
	}
	if c.pinch.Point[2] != pinchMin[2] {
		t.Errorf("depth %g not clamped to %g", c.pinch.Point[2], pinchMin[2])
	}
	if !c.press(buttonMiddle, 0, 0) || !c.pinch.Closed {
		t.Error("middle click did not close the pinch")
	}
}

// F shows the whole stand and F again returns to the hand as it was; a
// following camera turns towards the finger pair, but not while the
// stand is shown, while the pinch is dragged, or when it does not follow.
func TestControllerFrameAndAim(t *testing.T) {
	c := newController(DefaultCamera(), ctlW, ctlH)
	c.follow = true
	c.do(actOrbitLeft)
	hand := c.cam
	c.do(actFrame)
	if c.cam != StandCamera() || !c.stand {
		t.Fatalf("F: camera %+v, want the stand", c.cam)
	}
	f := showcaseFrame(8)
	mid, _ := fingerMidpoint(f)
	c.aim(f)
	if c.cam != StandCamera() {
		t.Error("the stand view followed the fingers")
	}
	c.do(actFrame)
	if c.cam != hand || c.stand {
		t.Fatalf("F again: camera %+v, want %+v", c.cam, hand)
	}
	before := norm(sub(mid, c.cam.Target))
	for range 20 {
		c.aim(f)
	}
	if after := norm(sub(mid, c.cam.Target)); !(after < 0.01*before) {
		t.Errorf("after 20 frames the target is %.4f m from the pads' midpoint (%.4f before)", after, before)
	}
	c.follow = false
	c.cam.Target = hand.Target
	c.aim(f)
	if c.cam.Target != hand.Target {
		t.Error("a camera that does not follow moved")
	}
}

// The HUD's pinch line reads the frame: held with the weaker finger's
// squeeze when both touch, open otherwise, and the gap between the pads'
// surfaces.
func TestPinchLine(t *testing.T) {
	r := &renderer{cfg: Config{}.withDefaults()}
	f := showcaseFrame(8)
	var l line
	r.pinchLine(&l, f)
	gap := norm(sub(f.Fingers.Fingers[0].Pos, f.Fingers.Fingers[1].Pos)) - 2*r.cfg.PadRadius
	if s := string(l); !strings.HasPrefix(s, "pinch held") || !strings.Contains(s, "squeeze  0.80 N") ||
		!strings.Contains(s, strconv.FormatFloat(1000*gap, 'f', 1, 64)+" mm") {
		t.Errorf("both in contact: %q", s)
	}
	f.Sim.Contact[0].InContact = false
	l = l[:0]
	r.pinchLine(&l, f)
	if s := string(l); !strings.HasPrefix(s, "pinch open") {
		t.Errorf("one finger off the cloth: %q", s)
	}
	f.Fingers.Fingers[1].Valid = false
	l = l[:0]
	r.pinchLine(&l, f)
	if s := string(l); s != "pinch --" {
		t.Errorf("no index finger: %q", s)
	}
}
