package render

import "math"

// controller turns mouse and key input into camera moves and the mouse
// finger pair. It holds no GLFW state, so tests drive it directly; the
// window feeds it from GLFW callbacks on the render thread.
//
//	left drag          move the pinch point over the cloth (in its depth plane)
//	wheel, [ and ]     move the pinch point in depth (z)
//	space, middle click   close or open the pinch
//	right drag, arrows orbit the camera
//	ctrl/shift+wheel, + and -   zoom
//	F                  the whole stand, and back to the hand
//	R, Home            reset the camera and the pinch
type controller struct {
	cam, cam0     Camera
	pinch, pinch0 Pinch
	width, height int // framebuffer size [px]; cursor positions are in its pixels
	// follow turns the camera towards the finger pair each frame (aim);
	// stand is set while F shows the whole stand, hand is the camera to
	// return to.
	follow, stand bool
	hand          Camera

	dragging, orbiting bool
	lastX, lastY       float64
	grab               vec3 // where the drag started on the depth plane
	grabPoint          vec3 // the pinch point when the drag started
}

type mouseButton int

const (
	buttonLeft mouseButton = iota
	buttonRight
	buttonMiddle
)

type action int

const (
	actTogglePinch action = iota
	actDepthIn            // towards -z (the thumb's side)
	actDepthOut           // towards +z
	actZoomIn
	actZoomOut
	actOrbitLeft
	actOrbitRight
	actOrbitUp
	actOrbitDown
	actFrame
	actGrid // the window's: show or hide the marking grid
	actReset
)

const (
	depthStep  = 0.002             // pinch depth per wheel notch or key press [m]
	zoomStep   = 0.9               // distance factor per notch
	orbitRate  = 0.008             // [rad/px]
	orbitStep  = 5 * math.Pi / 180 // per key press [rad]
	minGrazing = 0.1               // |ray·z| below which a drag on the depth plane is ignored
)

func newController(cam Camera, width, height int) *controller {
	p := DefaultPinch()
	return &controller{cam: cam, cam0: cam, pinch: p, pinch0: p, width: width, height: height}
}

func (c *controller) resize(width, height int) {
	if width > 0 && height > 0 {
		c.width, c.height = width, height
	}
}

// depthHit intersects the ray through (x, y) with the plane z = depth.
func (c *controller) depthHit(x, y, depth float64) (vec3, bool) {
	o, d := c.cam.Ray(x, y, c.width, c.height)
	if math.Abs(d[2]) < minGrazing {
		return vec3{}, false
	}
	t := (depth - o[2]) / d[2]
	if t <= 0 {
		return vec3{}, false
	}
	return add(o, scale(d, t)), true
}

// press reports whether the pinch changed.
func (c *controller) press(b mouseButton, x, y float64) bool {
	c.lastX, c.lastY = x, y
	switch b {
	case buttonLeft:
		if hit, ok := c.depthHit(x, y, c.pinch.Point[2]); ok {
			c.dragging, c.grab, c.grabPoint = true, hit, c.pinch.Point
		}
	case buttonRight:
		c.orbiting = true
	case buttonMiddle:
		return c.do(actTogglePinch)
	}
	return false
}

func (c *controller) release(b mouseButton) {
	switch b {
	case buttonLeft:
		c.dragging = false
	case buttonRight:
		c.orbiting = false
	}
}

// move reports whether the pinch changed. A drag moves the pinch point by
// the cursor's displacement on the point's depth plane, so the point keeps
// its place under the cursor and never jumps to where the drag began.
func (c *controller) move(x, y float64) bool {
	dx, dy := x-c.lastX, y-c.lastY
	c.lastX, c.lastY = x, y
	if c.orbiting {
		c.cam.Yaw -= dx * orbitRate
		c.cam.Pitch += dy * orbitRate
		c.cam = c.cam.sane()
	}
	if !c.dragging {
		return false
	}
	hit, ok := c.depthHit(x, y, c.grabPoint[2])
	if !ok {
		return false
	}
	p := clampPinch(add(c.grabPoint, sub(hit, c.grab)))
	p[2] = c.pinch.Point[2]
	if p == c.pinch.Point {
		return false
	}
	c.pinch.Point = p
	return true
}

// scroll handles notches of the wheel (positive away from the user);
// zoom selects zoom instead of depth. It reports whether the pinch changed.
func (c *controller) scroll(notches float64, zoom bool) bool {
	if math.IsNaN(notches) || math.IsInf(notches, 0) {
		return false
	}
	if zoom {
		c.cam.Distance *= math.Pow(zoomStep, notches)
		c.cam = c.cam.sane()
		return false
	}
	return c.setDepth(c.pinch.Point[2] - notches*depthStep)
}

func (c *controller) setDepth(z float64) bool {
	p := c.pinch.Point
	p[2] = z
	p = clampPinch(p)
	if p == c.pinch.Point {
		return false
	}
	c.pinch.Point = p
	if c.dragging {
		// Carry on the drag in the new depth plane from where the cursor is.
		c.grabPoint = p
		if hit, ok := c.depthHit(c.lastX, c.lastY, p[2]); ok {
			c.grab = hit
		} else {
			c.dragging = false
		}
	}
	return true
}

// aimRate is the share of the way to the finger pair a following camera
// turns each frame: quick enough to keep the pads in view, slow enough
// not to shake with them.
const aimRate = 0.25

// aim turns a following camera towards f's finger pair.
func (c *controller) aim(f *Frame) {
	if !c.follow || c.stand || c.dragging {
		return
	}
	if p, ok := fingerMidpoint(f); ok {
		c.cam.Target = add(c.cam.Target, scale(sub(p, c.cam.Target), aimRate))
	}
}

// do runs a key action and reports whether the pinch changed.
func (c *controller) do(a action) bool {
	switch a {
	case actTogglePinch:
		c.pinch.Closed = !c.pinch.Closed
		return true
	case actDepthIn:
		return c.setDepth(c.pinch.Point[2] - depthStep)
	case actDepthOut:
		return c.setDepth(c.pinch.Point[2] + depthStep)
	case actZoomIn:
		c.cam.Distance *= zoomStep
	case actZoomOut:
		c.cam.Distance /= zoomStep
	case actOrbitLeft:
		c.cam.Yaw -= orbitStep
	case actOrbitRight:
		c.cam.Yaw += orbitStep
	case actOrbitUp:
		c.cam.Pitch += orbitStep
	case actOrbitDown:
		c.cam.Pitch -= orbitStep
	case actFrame:
		if c.stand {
			c.cam, c.stand = c.hand, false
		} else {
			c.hand, c.cam, c.stand = c.cam, StandCamera(), true
		}
	case actReset:
		c.cam, c.stand = c.cam0, false
		c.dragging, c.orbiting = false, false
		changed := c.pinch != c.pinch0
		c.pinch = c.pinch0
		return changed
	}
	c.cam = c.cam.sane()
	return false
}
