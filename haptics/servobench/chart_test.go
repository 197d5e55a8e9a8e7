package servobench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The Z-width chart is written as a PNG and an SVG beside it, each
// replacing its file whole: a link at either path is replaced, and what it
// pointed to is left as it was.
func TestZWidthChartFiles(t *testing.T) {
	dir := t.TempDir()
	z := ZWidthResult{
		KMaxAtB0: 1800, LimitNpm: 1200,
		Points: []ZWidthPoint{{0, 1800}, {1, 2600}, {2, 3400}},
		Asked:  []AskedRange{{Label: "cloth", MaxNpm: 900}},
	}
	target := filepath.Join(dir, "precious.txt")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "zwidth.svg")); err != nil {
		t.Fatal(err)
	}
	if err := ZWidthChart(z, filepath.Join(dir, "zwidth.png")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
	for _, c := range []struct {
		name string
		head []byte
	}{
		{"zwidth.png", []byte("\x89PNG\r\n\x1a\n")},
		{"zwidth.svg", []byte("<svg")},
	} {
		path := filepath.Join(dir, c.name)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s: %v, %v; want a regular file", c.name, fi, err)
			continue
		}
		b, _ := os.ReadFile(path)
		if !bytes.Contains(b[:min(len(b), 512)], c.head) {
			t.Errorf("%s (%d bytes) does not start as one: %q", c.name, len(b), b[:min(len(b), 40)])
		}
	}
	if err := ZWidthChart(z, filepath.Join(dir, "zwidth.pdf")); err == nil {
		t.Error("a .pdf chart was written")
	}
}
