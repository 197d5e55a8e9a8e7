//go:build !linux

package render

// setNice does nothing where niceness is not per thread.
func setNice(int) {}
