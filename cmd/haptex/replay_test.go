package main

import (
	"strings"
	"testing"

	"github.com/haptex/haptex/devices"
	"github.com/haptex/haptex/devices/record"
)

// replay -dump prints every device recording of a session folder, and
// names the folder when it has none.
func TestReplayDump(t *testing.T) {
	dir := t.TempDir()
	s, err := record.NewSession(dir, record.Options{Lossless: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index-exo", "thumb-exo"} {
		rec, err := s.Recorder(name, "exoskeleton", devices.ExoSpec{Model: "m", DoF: 3})
		if err != nil {
			t.Fatal(err)
		}
		x := record.WrapExo(&stillExo{}, rec)
		x.Enable(true)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := dumpRecordings(&out, dir); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# index-exo (exoskeleton)", "# thumb-exo (exoskeleton)", "ENABLE"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("dump lacks %q:\n%s", want, out.String())
		}
	}
	empty := t.TempDir()
	if err := dumpRecordings(&out, empty); err == nil || !strings.Contains(err.Error(), empty) {
		t.Errorf("a session without recordings: %v", err)
	}
}

// stillExo is an exoskeleton that accepts everything and never moves.
type stillExo struct{}

func (*stillExo) Spec() devices.ExoSpec           { return devices.ExoSpec{DoF: 3} }
func (*stillExo) Read(*devices.ExoState) error    { return nil }
func (*stillExo) Write(*devices.ExoCommand) error { return nil }
func (*stillExo) Enable(bool) error               { return nil }
func (*stillExo) Close() error                    { return nil }
