package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// benchGoal is one figure with a goal in the README's "Measured on this
// machine" table: where the figure is in the bench's JSON (keys joined by
// dots, a number for a list index), and the goal it must meet.
type benchGoal struct {
	figure string
	op     string // "<=" or ">="
	goal   float64
	unit   string
	what   string
}

// benchGoals are the README's goals per bench. The cloth's goals come
// from its own result (each scene's goal_ms and goal_percentile).
var benchGoals = map[string][]benchGoal{
	"statebuf": {
		{"publish_ns", "<=", 100, "ns", "publish a 256 B value"},
		{"read_ns", "<=", 50, "ns", "read a new 256 B value"},
	},
	"loop": {
		{"lateness_us.p99", "<=", 100, "µs", "1 kHz tick lateness, p99"},
		{"lateness_us.p999", "<=", 300, "µs", "1 kHz tick lateness, p99.9"},
		{"late_over_1ms", "<=", 0, "ticks", "ticks later than 1 ms"},
	},
	"control": {
		{"transparency_max_n", "<=", 0.05, "N", "free-motion residual force"},
		{"step_rise_ms", "<=", 20, "ms", "1 N step: rise time"},
		{"step_overshoot_pct", "<=", 10, "%", "1 N step: overshoot"},
		{"steady_error_pct", "<=", 2, "%", "1 N step: steady error"},
		{"phase_margin_deg", ">=", 45, "°", "phase margin"},
		{"tick_us.p99", "<=", 20, "µs", "servo tick, p99"},
	},
	"devices": devicesGoals,
	"tactile": {
		{"frame_us.p99", "<=", 200, "µs", "tactile frame, both fingers, p99"},
	},
	"render": {
		{"fps", ">=", 30, "frames/s", "view at 1280 x 720, 64² cloth"},
	},
	"lockstep": {
		{"speed_p50", ">=", 5, "x real time", "lockstep session speed, median"},
	},
}

// goalResult is one goal as the bench JSON reports it. Value and Met are
// absent when the result lacks the figure.
type goalResult struct {
	Figure string   `json:"figure"`
	What   string   `json:"what"`
	Value  *float64 `json:"value,omitempty"`
	Op     string   `json:"op"`
	Goal   float64  `json:"goal"`
	Unit   string   `json:"unit"`
	Met    *bool    `json:"goal_met,omitempty"`
	Note   string   `json:"note,omitempty"`
}

// evalGoals checks a bench's JSON object against its goals.
func evalGoals(bench string, obj map[string]any) []goalResult {
	goals := benchGoals[bench]
	if bench == "sim" {
		scenes, _ := obj["scenes"].([]any)
		for i, sc := range scenes {
			m, _ := sc.(map[string]any)
			side, _ := m["side"].(float64)
			dt, _ := m["dt_ms"].(float64)
			script, _ := m["script"].(string)
			self, _ := m["self_collision"].(bool)
			onOff := "off"
			if self {
				onOff = "on"
				goals = append(goals, benchGoal{fmt.Sprintf("scenes.%d.penetrations", i), "<=", 0, "pairs",
					fmt.Sprintf("%s %g² @ %g ms: intersecting triangle pairs", script, side, dt)})
			}
			pct, _ := m["goal_percentile"].(string)
			goal, _ := m["goal_ms"].(float64)
			if pct == "" || goal == 0 {
				continue
			}
			if self {
				// A self-collision scene that lays no cloth on itself times
				// the step without self-contact: its step time says nothing
				// about the goal it carries (docs/cloth-contact.md, "Speed").
				// The scenes without a step goal (the showcase with
				// self-collision on, beside its figures with it off) carry
				// no such goal: the showcase never folds.
				goals = append(goals, benchGoal{fmt.Sprintf("scenes.%d.self_contacts.max", i), ">=", 1, "pairs",
					fmt.Sprintf("%s %g² @ %g ms: self-contact pairs in its busiest step (the scene exercises self-collision)", script, side, dt)})
			}
			goals = append(goals, benchGoal{fmt.Sprintf("scenes.%d.step_ms.%s", i, pct), "<=", goal, "ms",
				fmt.Sprintf("cloth step, %s, self-collision %s, %g² @ %g ms, %s", script, onOff, side, dt, pct)})
		}
	}
	out := make([]goalResult, 0, len(goals))
	for _, g := range goals {
		r := goalResult{Figure: g.figure, What: g.what, Op: g.op, Goal: g.goal, Unit: g.unit}
		if v, ok := lookup(obj, g.figure); ok {
			met := v <= g.goal
			if g.op == ">=" {
				met = v >= g.goal
			}
			r.Value, r.Met = &v, &met
		} else {
			r.Note = "the result has no such figure"
		}
		out = append(out, r)
	}
	return out
}

// lookup follows a dotted path of keys and list indices to a number.
func lookup(v any, path string) (float64, bool) {
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(x) {
				return 0, false
			}
			v = x[i]
		default:
			return 0, false
		}
	}
	f, ok := v.(float64)
	return f, ok
}

// goalsOf returns the goals a bench's JSON object carries.
func goalsOf(r any) []goalResult {
	m, _ := r.(map[string]any)
	g, _ := m["goals"].([]goalResult)
	return g
}

// printBenchTable prints every bench's goals for a reader: figure,
// value, goal and whether it was met, then the benches skipped or failed.
func printBenchTable(w io.Writer, names []string, results map[string]any) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "bench\tfigure\tvalue\tgoal\tmet")
	var notes []string
	for _, n := range names {
		m, _ := results[n].(map[string]any)
		if m == nil {
			notes = append(notes, n+" did not run")
			continue
		}
		if s, ok := m["interrupted"].(string); ok {
			notes = append(notes, fmt.Sprintf("%s interrupted: %s", n, s))
			if len(goalsOf(m)) == 0 {
				continue
			}
		}
		if e, ok := m["error"].(string); ok {
			notes = append(notes, fmt.Sprintf("%s failed: %s", n, e))
			continue
		}
		if s, ok := m["skipped"].(string); ok {
			notes = append(notes, fmt.Sprintf("%s skipped: %s", n, s))
			continue
		}
		gs := goalsOf(m)
		if len(gs) == 0 {
			fmt.Fprintf(tw, "%s\t(no goal in the README; -json for its figures)\t\t\t\n", n)
		}
		for _, g := range gs {
			val, met := "-", "-"
			if g.Value != nil {
				val = strconv.FormatFloat(*g.Value, 'g', 4, 64) + " " + g.Unit
				met = "no"
				if *g.Met {
					met = "yes"
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s %s %s\t%s\n", n, g.What, val, g.Op, strconv.FormatFloat(g.Goal, 'g', -1, 64), g.Unit, met)
		}
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintln(w, "every figure: haptex bench NAME -json")
}
