package kes_test

import (
	"fmt"

	"github.com/haptex/haptex/calib/kes"
)

// Kawabata values come with their SI equivalents.
func ExampleBuiltin() {
	f, err := kes.Builtin("denim")
	if err != nil {
		fmt.Println(err)
		return
	}
	b := f.Bending.Warp.B
	fmt.Printf("B warp: %g %s = %.4g %s\n", b.Value, b.Unit, b.SI, b.SIUnit)
	g := f.Shear.Warp.G
	fmt.Printf("G warp: %g %s = %.4g %s\n", g.Value, g.Unit, g.SI, g.SIUnit)
	w := f.Mass.W
	fmt.Printf("W: %g %s = %g %s (%s)\n", w.Value, w.Unit, w.SI, w.SIUnit, w.Status)
	fmt.Printf("Peirce bending length, warp: %.2f cm\n", 100*f.BendingLength(kes.Warp))
	// Output:
	// B warp: 0.9 gf·cm²/cm = 8.826e-05 N·m
	// G warp: 2.5 gf/(cm·deg) = 140.5 N/(m·rad)
	// W: 38 mg/cm² = 0.38 kg/m² (class-typical)
	// Peirce bending length, warp: 2.87 cm
}

// A tensile curve through (EMT, F_m) that encloses WT.
func ExampleNewTensileCurve() {
	c, err := kes.NewTensileCurve(4.5, 6.525, 500) // EMT %, WT gf·cm/cm², F_m gf/cm
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("F_m = %.2f N/m at strain %.3f, LT = %.2f\n", c.Force(c.StrainMax), c.StrainMax, c.Linearity())
	fmt.Printf("secant %.0f N/m, tangent at 0: %.0f N/m\n", c.SecantStiffness(), c.Stiffness(0))
	// Output:
	// F_m = 490.33 N/m at strain 0.045, LT = 0.58
	// secant 10896 N/m, tangent at 0: 1090 N/m
}

func ExampleParse() {
	_, err := kes.Parse([]byte("format = 1\nname = \"x\"\n[mass]\nW = { value = 38, unit = \"g\" }\n"), "mine.toml")
	fmt.Println(err)
	// Output:
	// kes: mine.toml: title: missing (and 20 more problems)
}

// The simulation's material comes from the fabric's KES values only.
func ExampleFabric_Material() {
	f, err := kes.Builtin("denim")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := f.Material()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %.3g kg/m², %.2g mm, bending warp %.4g N·m, weft %.4g N·m\n", m.Name, m.ArealMass, 1e3*m.Thickness, m.BendWarp, m.BendWeft)
	fmt.Printf("friction: static %.2f, kinetic %.2f\n", m.FrictionStatic, m.FrictionKinetic)
	// Output:
	// denim: 0.38 kg/m², 1.1 mm, bending warp 8.826e-05 N·m, weft 5.394e-05 N·m
	// friction: static 0.32, kinetic 0.23
}

// What `haptex fabric check NAME` prints, in short.
func ExampleCheck() {
	f, err := kes.Builtin("silk-habutae")
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := kes.Check(f, kes.CheckOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rep.Readings {
		if r.Test == "cantilever" {
			fmt.Printf("%s bending length: fabric %.2f cm, simulation within %.0f %%: %v\n", r.Direction, r.Input, 100*r.Tolerance, r.Pass)
		}
	}
	fmt.Println("pass:", rep.Pass)
	// Output:
	// warp bending length: fabric 1.54 cm, simulation within 5 %: true
	// weft bending length: fabric 1.40 cm, simulation within 5 %: true
	// pass: true
}
