//go:build haptexgldebug

package glw

const debug = true
