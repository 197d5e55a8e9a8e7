package glw

import (
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// cgoContext calls go-gl's cgo binding. Slices go to C as a pointer to
// their first element (never through gl.Ptr, whose interface argument
// allocates), and only for the duration of the call.
type cgoContext struct{}

var _ Context = cgoContext{}

func f32ptr(s []float32) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

func (cgoContext) ActiveTexture(texture uint32)        { gl.ActiveTexture(texture) }
func (cgoContext) AttachShader(program, shader uint32) { gl.AttachShader(program, shader) }
func (cgoContext) BindBuffer(target, buffer uint32)    { gl.BindBuffer(target, buffer) }
func (cgoContext) BindFramebuffer(target, framebuffer uint32) {
	gl.BindFramebuffer(target, framebuffer)
}
func (cgoContext) BindRenderbuffer(target, renderbuffer uint32) {
	gl.BindRenderbuffer(target, renderbuffer)
}
func (cgoContext) BindTexture(target, texture uint32) { gl.BindTexture(target, texture) }
func (cgoContext) BindVertexArray(array uint32)       { gl.BindVertexArray(array) }
func (cgoContext) BlendFuncSeparate(srcRGB, dstRGB, srcAlpha, dstAlpha uint32) {
	gl.BlendFuncSeparate(srcRGB, dstRGB, srcAlpha, dstAlpha)
}
func (cgoContext) BlitFramebuffer(srcX0, srcY0, srcX1, srcY1, dstX0, dstY0, dstX1, dstY1 int32, mask, filter uint32) {
	gl.BlitFramebuffer(srcX0, srcY0, srcX1, srcY1, dstX0, dstY0, dstX1, dstY1, mask, filter)
}
func (cgoContext) BufferDataFloat32(target uint32, data []float32, usage uint32) {
	gl.BufferData(target, 4*len(data), f32ptr(data), usage)
}
func (cgoContext) BufferDataUint32(target uint32, data []uint32, usage uint32) {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	gl.BufferData(target, 4*len(data), p, usage)
}
func (cgoContext) BufferDataSize(target uint32, size int, usage uint32) {
	gl.BufferData(target, size, nil, usage)
}
func (cgoContext) BufferSubDataFloat32(target uint32, offset int, data []float32) {
	if len(data) == 0 {
		return
	}
	gl.BufferSubData(target, offset, 4*len(data), f32ptr(data))
}
func (cgoContext) BufferSubDataUint32(target uint32, offset int, data []uint32) {
	if len(data) == 0 {
		return
	}
	gl.BufferSubData(target, offset, 4*len(data), unsafe.Pointer(&data[0]))
}
func (cgoContext) CheckFramebufferStatus(target uint32) uint32 {
	return gl.CheckFramebufferStatus(target)
}
func (cgoContext) Clear(mask uint32)               { gl.Clear(mask) }
func (cgoContext) ClearColor(r, g, b, a float32)   { gl.ClearColor(r, g, b, a) }
func (cgoContext) CompileShader(shader uint32)     { gl.CompileShader(shader) }
func (cgoContext) CreateProgram() uint32           { return gl.CreateProgram() }
func (cgoContext) CreateShader(kind uint32) uint32 { return gl.CreateShader(kind) }
func (cgoContext) DeleteBuffer(buffer uint32)      { gl.DeleteBuffers(1, &buffer) }
func (cgoContext) DeleteFramebuffer(framebuffer uint32) {
	gl.DeleteFramebuffers(1, &framebuffer)
}
func (cgoContext) DeleteProgram(program uint32) { gl.DeleteProgram(program) }
func (cgoContext) DeleteRenderbuffer(renderbuffer uint32) {
	gl.DeleteRenderbuffers(1, &renderbuffer)
}
func (cgoContext) DeleteShader(shader uint32)     { gl.DeleteShader(shader) }
func (cgoContext) DeleteTexture(texture uint32)   { gl.DeleteTextures(1, &texture) }
func (cgoContext) DeleteVertexArray(array uint32) { gl.DeleteVertexArrays(1, &array) }
func (cgoContext) DepthFunc(fn uint32)            { gl.DepthFunc(fn) }
func (cgoContext) DepthMask(flag bool)            { gl.DepthMask(flag) }
func (cgoContext) Disable(capability uint32)      { gl.Disable(capability) }
func (cgoContext) DrawArrays(mode uint32, first, count int32) {
	gl.DrawArrays(mode, first, count)
}
func (cgoContext) DrawElements(mode uint32, count int32, kind uint32, offset int) {
	gl.DrawElementsWithOffset(mode, count, kind, uintptr(offset))
}
func (cgoContext) Enable(capability uint32)             { gl.Enable(capability) }
func (cgoContext) EnableVertexAttribArray(index uint32) { gl.EnableVertexAttribArray(index) }
func (cgoContext) Finish()                              { gl.Finish() }
func (cgoContext) FramebufferRenderbuffer(target, attachment, renderbufferTarget, renderbuffer uint32) {
	gl.FramebufferRenderbuffer(target, attachment, renderbufferTarget, renderbuffer)
}
func (cgoContext) GenBuffer() uint32 {
	var b uint32
	gl.GenBuffers(1, &b)
	return b
}
func (cgoContext) GenFramebuffer() uint32 {
	var f uint32
	gl.GenFramebuffers(1, &f)
	return f
}
func (cgoContext) GenRenderbuffer() uint32 {
	var r uint32
	gl.GenRenderbuffers(1, &r)
	return r
}
func (cgoContext) GenTexture() uint32 {
	var t uint32
	gl.GenTextures(1, &t)
	return t
}
func (cgoContext) GenVertexArray() uint32 {
	var a uint32
	gl.GenVertexArrays(1, &a)
	return a
}
func (cgoContext) GetError() uint32 { return gl.GetError() }
func (cgoContext) GetInteger(pname uint32) int32 {
	var v int32
	gl.GetIntegerv(pname, &v)
	return v
}
func (cgoContext) GetProgramInfoLog(program uint32) string {
	var n int32
	gl.GetProgramiv(program, gl.INFO_LOG_LENGTH, &n)
	if n <= 1 {
		return ""
	}
	buf := make([]uint8, n)
	gl.GetProgramInfoLog(program, n, nil, &buf[0])
	return gl.GoStr(&buf[0])
}
func (cgoContext) GetProgrami(program, pname uint32) int32 {
	var v int32
	gl.GetProgramiv(program, pname, &v)
	return v
}
func (cgoContext) GetShaderInfoLog(shader uint32) string {
	var n int32
	gl.GetShaderiv(shader, gl.INFO_LOG_LENGTH, &n)
	if n <= 1 {
		return ""
	}
	buf := make([]uint8, n)
	gl.GetShaderInfoLog(shader, n, nil, &buf[0])
	return gl.GoStr(&buf[0])
}
func (cgoContext) GetShaderi(shader, pname uint32) int32 {
	var v int32
	gl.GetShaderiv(shader, pname, &v)
	return v
}
func (cgoContext) GetString(name uint32) string {
	p := gl.GetString(name)
	if p == nil {
		return ""
	}
	return gl.GoStr(p)
}
func (cgoContext) GetUniformLocation(program uint32, name string) int32 {
	return gl.GetUniformLocation(program, gl.Str(name+"\x00"))
}
func (cgoContext) LinkProgram(program uint32)            { gl.LinkProgram(program) }
func (cgoContext) PixelStorei(pname uint32, param int32) { gl.PixelStorei(pname, param) }
func (cgoContext) ReadPixels(dst []byte, x, y, width, height int32, format, kind uint32) {
	gl.ReadPixels(x, y, width, height, format, kind, unsafe.Pointer(&dst[0]))
}
func (cgoContext) RenderbufferStorage(target, internalFormat uint32, width, height int32) {
	gl.RenderbufferStorage(target, internalFormat, width, height)
}
func (cgoContext) RenderbufferStorageMultisample(target uint32, samples int32, internalFormat uint32, width, height int32) {
	gl.RenderbufferStorageMultisample(target, samples, internalFormat, width, height)
}
func (cgoContext) ShaderSource(shader uint32, source string) {
	cs, free := gl.Strs(source + "\x00")
	defer free()
	gl.ShaderSource(shader, 1, cs, nil)
}
func (cgoContext) TexImage2D(target uint32, level, internalFormat, width, height int32, format, kind uint32, pixels []byte) {
	var p unsafe.Pointer
	if len(pixels) > 0 {
		p = unsafe.Pointer(&pixels[0])
	}
	gl.TexImage2D(target, level, internalFormat, width, height, 0, format, kind, p)
}
func (cgoContext) TexParameteri(target, pname uint32, param int32) {
	gl.TexParameteri(target, pname, param)
}
func (cgoContext) Uniform1f(location int32, v float32)       { gl.Uniform1f(location, v) }
func (cgoContext) Uniform1i(location int32, v int32)         { gl.Uniform1i(location, v) }
func (cgoContext) Uniform2f(location int32, x, y float32)    { gl.Uniform2f(location, x, y) }
func (cgoContext) Uniform3f(location int32, x, y, z float32) { gl.Uniform3f(location, x, y, z) }
func (cgoContext) Uniform4f(location int32, x, y, z, w float32) {
	gl.Uniform4f(location, x, y, z, w)
}
func (cgoContext) Uniform4fv(location int32, v []float32) {
	gl.Uniform4fv(location, int32(len(v)/4), &v[0])
}
func (cgoContext) UniformMatrix3fv(location int32, m []float32) {
	gl.UniformMatrix3fv(location, int32(len(m)/9), false, &m[0])
}
func (cgoContext) UniformMatrix4fv(location int32, m []float32) {
	gl.UniformMatrix4fv(location, int32(len(m)/16), false, &m[0])
}
func (cgoContext) UseProgram(program uint32) { gl.UseProgram(program) }
func (cgoContext) VertexAttribPointer(index uint32, size int32, kind uint32, normalized bool, stride int32, offset int) {
	gl.VertexAttribPointerWithOffset(index, size, kind, normalized, stride, uintptr(offset))
}
func (cgoContext) Viewport(x, y, width, height int32) { gl.Viewport(x, y, width, height) }
