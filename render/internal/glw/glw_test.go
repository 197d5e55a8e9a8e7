package glw

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

// debug.go is generated from interface.go; a method added to Context
// without regenerating would leave it unchecked (or not compile).
func TestDebugUpToDate(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run the generator")
	}
	out, err := exec.Command(goTool, "run", "gen.go", "-o", "-").Output()
	if err != nil {
		t.Fatalf("go run gen.go: %v", err)
	}
	have, err := os.ReadFile("debug.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, have) {
		t.Error("debug.go is out of date: run go generate in render/internal/glw")
	}
}

func TestErrorText(t *testing.T) {
	e := &Error{Call: "BindBuffer", Code: 0x0500}
	if got, want := e.Error(), "glw: BindBuffer: GL error GL_INVALID_ENUM (0x0500)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func TestNewFollowsTag(t *testing.T) {
	if _, checked := New().(*debugContext); checked != debug {
		t.Errorf("New returns a checking Context: %v; built with haptexgldebug: %v", checked, debug)
	}
}
