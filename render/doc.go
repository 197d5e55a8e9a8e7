// Package render draws the scene with OpenGL 4.1 core, in a window or
// offscreen. It reads the latest state and never blocks a loop.
package render
