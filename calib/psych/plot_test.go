package psych

import (
	"bytes"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

var plotDir = flag.String("psych.plots", "", "also write the test plots to this directory")

// TestPlot draws the HAPTEX curvature data set with its fit and bootstrap
// interval as PNG and SVG and checks that both decode and show the curve
// and the data.
func TestPlot(t *testing.T) {
	data := readPoints(t, filepath.Join("testdata", "fits", "curvature_yesno.csv"))
	f, err := FitPF(data, FitOptions{Form: Logistic, FreeGamma: true, Lambda: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.Bootstrap(BootstrapOptions{Samples: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Plot(PlotOptions{Title: "curvature detection (simulated, HAPTEX design)", XLabel: "curvature [1/m]", Bootstrap: b})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WritePlot(&buf, p, "png"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var blue, dark int
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if bl > 0xa000 && r < 0x5000 && g < 0x9000 {
				blue++
			}
			if r < 0x2000 && g < 0x2000 && bl < 0x2000 {
				dark++
			}
		}
	}
	if bnd.Dx() < 300 || blue < 200 || dark < 500 {
		t.Errorf("PNG %v: %d curve pixels, %d dark pixels", bnd, blue, dark)
	}
	buf.Reset()
	if err := WritePlot(&buf, p, "svg"); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.Contains(s, "<svg") || strings.Count(s, "<path") < 20 {
		t.Errorf("SVG has %d paths", strings.Count(s, "<path"))
	}
	dir := t.TempDir()
	if *plotDir != "" {
		dir = *plotDir
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"curvature.png", "curvature.svg"} {
		savePlot(t, p, filepath.Join(dir, name))
	}
	if err := WritePlot(&buf, p, "pdf"); err == nil {
		t.Error("pdf accepted")
	}
	if _, err := f.Plot(PlotOptions{LogX: true}); err == nil {
		t.Error("log axis with a zero stimulus accepted")
	}
	w := readPoints(t, filepath.Join("testdata", "fits", "weibull_2afc.csv"))
	fw, err := FitPF(w, FitOptions{Form: Weibull, Gamma: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	pw, err := fw.Plot(PlotOptions{Title: "2AFC, Weibull", XLabel: "amplitude [µm]", LogX: true})
	if err != nil {
		t.Fatal(err)
	}
	savePlot(t, pw, filepath.Join(dir, "weibull.png"))
}

// savePlot writes p to path (-plotdir keeps them to look at); the
// extension picks the format.
func savePlot(t *testing.T, p *plot.Plot, path string) {
	t.Helper()
	var b bytes.Buffer
	if err := WritePlot(&b, p, strings.TrimPrefix(filepath.Ext(path), ".")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
