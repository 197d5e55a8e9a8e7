package main

import (
	"fmt"

	"github.com/haptex/haptex/app/report"
)

func init() {
	register(&command{name: "report", summary: "write an HTML page with plots of a session or an experiment's subject folder", run: runReport})
}

func runReport(args []string) error {
	fs := newFlags("report", "report [flags] DIR   (a session folder, or experiments/NAME/SUBJECT)",
		"The page (index.html) opens in any browser without a server: its figures are inside it, and\nbeside it as PNG and SVG files.")
	out := fs.String("o", "", "folder for the page and its figures (default: DIR/report)")
	if err := parse(fs, args, 1); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: which folder? (haptex report sessions/session-..., or experiments/NAME/SUBJECT)", errUsage)
	}
	res, err := report.Write(fs.Arg(0), report.Options{Out: *out})
	if err != nil {
		return err
	}
	fmt.Printf("%s report: %s (%d figures, each also as PNG and SVG beside it)\n", res.Kind, res.Page, len(res.Figures)/2)
	for _, n := range res.Notes {
		fmt.Printf("  not shown: %s\n", n)
	}
	return nil
}
