// Package safefile is how haptex touches the file system: it reads input
// files within limits and writes output files without following symbolic
// links.
//
// # Reading
//
// ReadFile and Open read regular files only: a FIFO, a device, a socket or
// a directory is refused from its stat, before it is opened, so reading
// never blocks on a FIFO and never streams /dev/zero. The size limit is
// enforced on the bytes read, not on the size stat reports (0 for /proc
// files and devices). CheckTOML checks the structure of a TOML file in one
// linear pass, without allocating per byte, before a TOML decoder sees it:
// nesting depth, key parts, key length, tables and values (TOMLLimits).
// BurntSushi/toml's time and memory grow with the square of the nesting
// and with about 100-800 bytes per key, table or array element, so these
// limits bound what decoding a file can cost. Every refusal is an *Error:
// one line naming the file, the line where it applies and the limit, and
// matchable with errors.Is against ErrNotRegular, ErrTooLarge,
// ErrTooDeep, ErrTooManyKeys, ErrKeyTooLong, ErrTooManyTables or
// ErrTooManyValues.
// A decoder's own message can quote the bytes it failed on, a line
// break included: OneLine and OneLineError keep such a message on one
// line.
//
// # Writing
//
// The folder a user names (an -out or -dir flag, the folder of an -o file)
// is resolved as given, symbolic links included. Everything haptex creates
// inside it is reached through the folder's descriptor with O_NOFOLLOW
// (Dir): a symbolic link planted where haptex writes a file or opens a
// folder it named is refused with ErrSymlink, never followed. Whole files
// are written to a temporary file in the same folder and renamed over the
// target (WriteFile), which replaces a planted link or hard link instead
// of writing through it; streamed files are created exclusively (Create)
// or reopened without following links (Dir.Open). Files are created with
// mode 0666 and folders with 0777, so the process's umask decides, as
// Unix tools do. A writer that must be the folder's only one takes its
// Lock (flock(2), ErrLocked when held) and, holding it, may remove what a
// killed write left (RemoveTemps); writers that take turns wait a bounded
// time for it (LockWithin).
//
// # Names
//
// ValidName is the one pattern for every name haptex turns into a path
// component: experiments, subjects and fabrics.
//
// The package never decodes a format (callers decode what it read) and
// never decides a file's location or its limit: the packages that own a
// format choose both.
package safefile
