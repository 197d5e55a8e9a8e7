// Package glw is the one door through which render calls OpenGL 4.1 core.
//
// Context lists exactly the GL entry points render uses, with Go types in
// place of C pointers, so that a decorator can check every call: built with
// the haptexgldebug tag, New returns a Context that calls glGetError after
// each call and panics with an *Error naming the call (a GL error is a
// programmer error). Without the tag the check costs nothing.
//
// Every method must be called on the OS thread whose GL context is current.
// Slices passed in are read or written during the call only, never retained.
package glw

//go:generate go run gen.go

// Context is the OpenGL 4.1 core API as render uses it. Names and argument
// order follow the GL functions; Gen*/Delete* handle one object at a time.
type Context interface {
	ActiveTexture(texture uint32)
	AttachShader(program, shader uint32)
	BindBuffer(target, buffer uint32)
	BindFramebuffer(target, framebuffer uint32)
	BindRenderbuffer(target, renderbuffer uint32)
	BindTexture(target, texture uint32)
	BindVertexArray(array uint32)
	BlendFuncSeparate(srcRGB, dstRGB, srcAlpha, dstAlpha uint32)
	BlitFramebuffer(srcX0, srcY0, srcX1, srcY1, dstX0, dstY0, dstX1, dstY1 int32, mask, filter uint32)
	BufferDataFloat32(target uint32, data []float32, usage uint32)
	BufferDataUint32(target uint32, data []uint32, usage uint32)
	BufferDataSize(target uint32, size int, usage uint32)
	BufferSubDataFloat32(target uint32, offset int, data []float32)
	BufferSubDataUint32(target uint32, offset int, data []uint32)
	CheckFramebufferStatus(target uint32) uint32
	Clear(mask uint32)
	ClearColor(r, g, b, a float32)
	CompileShader(shader uint32)
	CreateProgram() uint32
	CreateShader(kind uint32) uint32
	DeleteBuffer(buffer uint32)
	DeleteFramebuffer(framebuffer uint32)
	DeleteProgram(program uint32)
	DeleteRenderbuffer(renderbuffer uint32)
	DeleteShader(shader uint32)
	DeleteTexture(texture uint32)
	DeleteVertexArray(array uint32)
	DepthFunc(fn uint32)
	DepthMask(flag bool)
	Disable(capability uint32)
	DrawArrays(mode uint32, first, count int32)
	DrawElements(mode uint32, count int32, kind uint32, offset int)
	Enable(capability uint32)
	EnableVertexAttribArray(index uint32)
	Finish()
	FramebufferRenderbuffer(target, attachment, renderbufferTarget, renderbuffer uint32)
	GenBuffer() uint32
	GenFramebuffer() uint32
	GenRenderbuffer() uint32
	GenTexture() uint32
	GenVertexArray() uint32
	GetError() uint32
	GetInteger(pname uint32) int32
	GetProgramInfoLog(program uint32) string
	GetProgrami(program, pname uint32) int32
	GetShaderInfoLog(shader uint32) string
	GetShaderi(shader, pname uint32) int32
	GetString(name uint32) string
	GetUniformLocation(program uint32, name string) int32
	LinkProgram(program uint32)
	PixelStorei(pname uint32, param int32)
	ReadPixels(dst []byte, x, y, width, height int32, format, kind uint32)
	RenderbufferStorage(target, internalFormat uint32, width, height int32)
	RenderbufferStorageMultisample(target uint32, samples int32, internalFormat uint32, width, height int32)
	ShaderSource(shader uint32, source string)
	TexImage2D(target uint32, level, internalFormat, width, height int32, format, kind uint32, pixels []byte)
	TexParameteri(target, pname uint32, param int32)
	Uniform1f(location int32, v float32)
	Uniform1i(location int32, v int32)
	Uniform2f(location int32, x, y float32)
	Uniform3f(location int32, x, y, z float32)
	Uniform4f(location int32, x, y, z, w float32)
	Uniform4fv(location int32, v []float32)
	UniformMatrix3fv(location int32, m []float32)
	UniformMatrix4fv(location int32, m []float32)
	UseProgram(program uint32)
	VertexAttribPointer(index uint32, size int32, kind uint32, normalized bool, stride int32, offset int)
	Viewport(x, y, width, height int32)
}
