// Package layering holds the test that keeps haptex's import graph the
// shape docs/architecture.md draws. It has no code of its own.
//
// The rules, checked over every package of the module and its transitive
// (non-test) dependencies:
//
//   - the numerics (sim, sim/odetest, tactile, haptics/filter) import only the
//     standard library, gonum and golang.org/x/sys;
//   - the plumbing under internal/ imports only the standard library,
//     golang.org/x/sys and other plumbing;
//   - nothing outside render/ and cmd/ reaches OpenGL or GLFW;
//   - nothing under devices/ reaches haptics/, sim/, tactile/, app/ or cmd/;
//   - nothing outside app/ and cmd/ reaches app/.
package layering
