package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/haptex/haptex/calib/kes"
)

func init() {
	register(&command{name: "fabric", summary: "fabrics from Kawabata data: list | show NAME | import FILE | check NAME|FILE", run: runFabric,
		subs: []subcommand{
			{"list", "", "list the built-in and imported fabrics"},
			{"show", "NAME", "print a fabric's Kawabata values, units and sources (-raw: its file)"},
			{"import", "FILE", "validate a Kawabata file and add it to the user library"},
			{"check", "NAME|FILE", "load a fabric into the simulation and run the virtual Kawabata tests"},
		}})
}

// defaultLibraryDir is where imported fabrics go: $XDG_DATA_HOME/haptex/fabrics,
// or ~/.local/share/haptex/fabrics.
func defaultLibraryDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "haptex", "fabrics")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "haptex", "fabrics")
	}
	return ""
}

func runFabric(args []string) error {
	fs := subFlags("fabric", args)
	lib := fs.String("library", defaultLibraryDir(), "user fabric library folder (imported fabrics)")
	asJSON := fs.Bool("json", false, "print JSON")
	raw := fs.Bool("raw", false, "show: print the fabric file as it is")
	elem := fs.String("element-size", "", "check: run every virtual test with elements this long (a length with its unit, e.g. 9.7mm, or finest)")
	scene := fs.Bool("scene", false, fmt.Sprintf("check: run every virtual test at the resolution haptex run simulates (%.1f mm elements)", 1000*kes.SceneElementSize))
	if len(args) == 0 {
		fs.Usage()
		return fmt.Errorf("%w: which fabric command?", errUsage)
	}
	sub, rest := args[0], args[1:]
	// The fabric's name or file may come before the flags or after them.
	var arg string
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		arg, rest = rest[0], rest[1:]
	}
	max := 1
	if arg != "" {
		max = 0
	}
	if err := parse(fs, rest, max); err != nil {
		return err
	}
	l := kes.Library{Dir: *lib}
	if arg == "" {
		arg = fs.Arg(0)
	}
	switch sub {
	case "list":
		sums, err := l.List()
		if err != nil {
			return err
		}
		if *asJSON {
			printJSON(sums)
			return nil
		}
		tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tCLASS\tWEAVE\tFIBRE\tMEASURED\tCLASS-TYPICAL\tDERIVED\tSOURCE")
		for _, s := range sums {
			if s.Error != "" {
				fmt.Fprintf(tw, "%s\t\t\t\t\t\t\tERROR: %s\n", s.Name, s.Error)
				continue
			}
			where := "built-in"
			if !s.Builtin {
				where = s.File
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", s.Name, s.Class, s.Weave, s.Fibre, s.Measured, s.ClassTypical, s.Derived, where)
		}
		return tw.Flush()
	case "show":
		if arg == "" {
			return fmt.Errorf("%w: fabric show NAME", errUsage)
		}
		if *raw {
			src, err := kes.BuiltinSource(arg)
			if errors.Is(err, kes.ErrNotFound) {
				src, err = kes.Library{Dir: *lib}.Source(arg)
			}
			if err != nil {
				return err
			}
			_, err = os.Stdout.Write(src)
			return err
		}
		f, err := l.Load(arg)
		if err != nil {
			return err
		}
		if *asJSON {
			printJSON(map[string]any{"summary": f.Summary(), "values": f.Entries(), "sources": f.Sources})
			return nil
		}
		s := f.Summary()
		fmt.Printf("%s: %s (%s, %s, %s)\n", s.Name, s.Title, s.Class, s.Weave, s.Fibre)
		fmt.Printf("values: %d measured, %d class-typical, %d derived\n\n", s.Measured, s.ClassTypical, s.Derived)
		tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "FIELD\tVALUE\tUNIT\tSI\tSI UNIT\tSTATUS\tSOURCE")
		for _, e := range f.Entries() {
			src := e.Source
			if e.Table != "" {
				src += " " + e.Table
			}
			fmt.Fprintf(tw, "%s\t%.4g\t%s\t%.4g\t%s\t%s\t%s\n", e.Field, e.Value.Value, e.Unit, e.SI, e.SIUnit, e.Status, src)
		}
		return tw.Flush()
	case "import":
		if arg == "" {
			return fmt.Errorf("%w: fabric import FILE", errUsage)
		}
		f, dst, err := kes.Import(arg, *lib)
		if err != nil {
			return err
		}
		s := f.Summary()
		fmt.Printf("imported %s (%d measured, %d class-typical, %d derived values) to %s\n", f.Name, s.Measured, s.ClassTypical, s.Derived, dst)
		return nil
	case "check":
		if arg == "" {
			return fmt.Errorf("%w: fabric check NAME|FILE", errUsage)
		}
		var f *kes.Fabric
		var err error
		if strings.HasSuffix(arg, ".toml") || strings.ContainsRune(arg, os.PathSeparator) {
			f, err = kes.LoadFile(arg)
		} else {
			f, err = l.Load(arg)
		}
		if err != nil {
			return err
		}
		var opt kes.CheckOptions
		switch {
		case *scene && *elem != "":
			return fmt.Errorf("%w: -scene and -element-size both set a resolution", errUsage)
		case *scene:
			opt.ElementSize = kes.SceneElementSize
		case *elem != "":
			if opt.ElementSize, err = parseLength(*elem); err != nil {
				return fmt.Errorf("%w: -element-size: %v", errUsage, err)
			}
		}
		rep, err := kes.Check(f, opt)
		if err != nil {
			return err
		}
		if *asJSON {
			printJSON(rep)
		} else if err := rep.WriteText(os.Stdout); err != nil {
			return err
		}
		if !rep.Pass {
			return fmt.Errorf("%s fails the virtual Kawabata check", f.Name)
		}
		return nil
	}
	return fmt.Errorf("%w: unknown fabric command %q (list, show, import, check)", errUsage, sub)
}
