//go:build unix && !linux

package transport

import "golang.org/x/sys/unix"

// ReadArrived reads into b what has arrived on the non-blocking
// descriptor fd; unix.EAGAIN when nothing has. (Only Linux's terminals
// make an empty read wait for a kernel worker; see the Linux version.)
func ReadArrived(fd int, b []byte) (int, error) { return unix.Read(fd, b) }
