package glw

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// Init loads the GL entry points. Call it once, with a GL 4.1 core context
// current on the calling thread.
func Init() error {
	if err := gl.Init(); err != nil {
		return fmt.Errorf("glw: loading OpenGL 4.1 core functions: %w", err)
	}
	return nil
}

// New returns the Context for the current GL context: the plain binding,
// or, built with the haptexgldebug tag, the same wrapped in NewDebug.
func New() Context {
	if debug {
		return NewDebug(cgoContext{})
	}
	return cgoContext{}
}

// NewDebug wraps c so that every call is followed by glGetError; a call
// that leaves an error panics with an *Error. It is what New returns under
// the haptexgldebug tag, exported so tests can check the checker.
func NewDebug(c Context) Context { return &debugContext{c: c} }

// Error is the panic value of a debug Context: GL call Call left error Code.
type Error struct {
	Call string
	Code uint32
}

func (e *Error) Error() string {
	return fmt.Sprintf("glw: %s: GL error %s (0x%04x)", e.Call, codeName(e.Code), e.Code)
}

func codeName(code uint32) string {
	switch code {
	case gl.INVALID_ENUM:
		return "GL_INVALID_ENUM"
	case gl.INVALID_VALUE:
		return "GL_INVALID_VALUE"
	case gl.INVALID_OPERATION:
		return "GL_INVALID_OPERATION"
	case gl.INVALID_FRAMEBUFFER_OPERATION:
		return "GL_INVALID_FRAMEBUFFER_OPERATION"
	case gl.OUT_OF_MEMORY:
		return "GL_OUT_OF_MEMORY"
	}
	return "unknown"
}

// debugContext is the checking decorator; its methods are generated from
// Context by gen.go into debug.go.
type debugContext struct {
	c Context
}

func (d *debugContext) check(call string) {
	if code := d.c.GetError(); code != gl.NO_ERROR {
		// Drain the remaining flags so the next check reports its own call.
		for i := 0; i < 8; i++ {
			if d.c.GetError() == gl.NO_ERROR {
				break
			}
		}
		panic(&Error{Call: call, Code: code})
	}
}
