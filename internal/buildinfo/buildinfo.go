// Package buildinfo says which haptex a program is: the module version,
// the VCS commit it was built from and whether the work tree had changes,
// the Go version and the platform. Every record haptex writes
// (session.json, an experiment's sidecar.json, every bench's JSON) and
// `haptex version` take them from here, so they always agree.
//
// The commit comes from the Go toolchain's VCS stamp (go build
// -buildvcs=true in a git checkout) or, where the toolchain stamps none
// (a git worktree; GOFLAGS=-buildvcs=false; go run), from the linker flags
// the Makefile passes:
//
//	-X github.com/haptex/haptex/internal/buildinfo.commit=$(git rev-parse HEAD)
//	-X github.com/haptex/haptex/internal/buildinfo.modified=true|false
//
// It never runs git itself: a program must not depend on the folder it
// is started in.
package buildinfo

import (
	"runtime"
	"runtime/debug"
)

// Set by the linker (see the package doc); empty when not.
var (
	commit   string
	modified string
)

// Info identifies a build.
type Info struct {
	Version  string `json:"version"`  // the main module's version; "(devel)" for a local build without a VCS stamp
	Commit   string `json:"commit"`   // the VCS revision; "" when the build does not know it
	Modified bool   `json:"modified"` // the work tree had uncommitted changes
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}

// Read returns the running program's build information.
func Read() Info {
	in := Info{Version: "(devel)", Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			in.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if in.Commit == "" && commit != "" {
		in.Commit, in.Modified = commit, modified == "true"
	}
	return in
}

// Map returns the information as the "software" object of haptex's
// records: haptex (the module version), commit, modified, go, os and arch.
// The keys vcs.revision and vcs.modified repeat commit and modified, as
// records written before this package named them.
func (in Info) Map() map[string]string {
	m := map[string]string{"haptex": in.Version, "go": in.Go, "os": in.OS, "arch": in.Arch, "commit": in.Commit}
	if in.Commit == "" {
		m["commit"] = "unknown"
	} else {
		mod := "false"
		if in.Modified {
			mod = "true"
		}
		m["modified"], m["vcs.revision"], m["vcs.modified"] = mod, in.Commit, mod
	}
	return m
}

// Short is the commit's first 12 characters and "+dirty" when the tree
// was modified, or "unknown".
func (in Info) Short() string {
	if in.Commit == "" {
		return "unknown"
	}
	c := in.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if in.Modified {
		c += "+dirty"
	}
	return c
}
