package main

// What every bench JSON carries: the common fields, the goals, and where
// it ran.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/haptex/haptex/internal/buildinfo"
)

// runOneBench runs one bench and returns its result as a JSON object with
// the common fields and its goals; a bench that fails still gives an
// object, with "error".
func runOneBench(ctx context.Context, n string, bench func(context.Context, benchOpts) (any, error), o benchOpts) (map[string]any, error) {
	res, err := bench(ctx, o)
	var obj map[string]any
	if err == nil {
		obj, err = withCommonFields(n, res)
	}
	if err != nil {
		obj = map[string]any{"bench": n, "error": err.Error()}
		addProvenance(obj)
		return obj, err
	}
	if _, skipped := obj["skipped"]; !skipped {
		obj["goals"] = evalGoals(n, obj)
	}
	return obj, nil
}

// benchGrace is how long a bench has, after a signal, to return what it
// measured: the benches that watch the context stop within a tick or a
// run; one that does not is left behind when it is over.
const benchGrace = 3 * time.Second

// runUntilSignal is runOneBench until a signal cancels ctx. The bench's
// result then carries "interrupted" (the signal); a bench that has not
// returned within benchGrace is reported by that alone, with its name and
// the provenance. A bench that failed because of the signal is not a
// failure: its error stays in the result.
func runUntilSignal(ctx context.Context, n string, o benchOpts) (map[string]any, error) {
	type outcome struct {
		obj map[string]any
		err error
	}
	done := make(chan outcome, 1)
	bench := benches[n] // read here: a bench left behind reads nothing shared
	go func() {
		obj, err := runOneBench(ctx, n, bench, o)
		done <- outcome{obj, err}
	}()
	var r outcome
	select {
	case r = <-done:
	case <-ctx.Done():
		t := time.NewTimer(benchGrace)
		defer t.Stop()
		select {
		case r = <-done:
		case <-t.C:
			r.obj = map[string]any{"bench": n}
			addProvenance(r.obj)
		}
	}
	if ctx.Err() == nil {
		return r.obj, r.err
	}
	r.obj["interrupted"] = context.Cause(ctx).Error()
	return r.obj, nil
}

// notRun says which benches a signal kept from running, if any.
func notRun(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "; not run: " + strings.Join(names, ", ")
}

// withCommonFields turns a bench result into a JSON object carrying the
// fields every bench reports: "bench", "go", "cpus", and the provenance
// (addProvenance).
func withCommonFields(name string, res any) (map[string]any, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, fmt.Errorf("bench %s: result is not a JSON object: %w", name, err)
	}
	obj["bench"] = name
	addProvenance(obj)
	return obj, nil
}

// addProvenance adds what every bench JSON says about where it ran:
// "software" (haptex's version and commit), "timestamp" (UTC, RFC 3339),
// "host" (hostInfo), "go" and "cpus".
func addProvenance(obj map[string]any) {
	in := buildinfo.Read()
	obj["software"] = in.Map()
	obj["timestamp"] = time.Now().UTC().Format(time.RFC3339)
	obj["host"] = hostInfo()
	obj["go"] = runtime.Version()
	obj["cpus"] = runtime.NumCPU()
}

func printJSON(v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	fmt.Println(string(b))
}

// hostInfo describes the machine a bench ran on: name, kernel, CPU model
// and count, memory and the load average when the bench ended (Linux;
// elsewhere what the runtime knows).
func hostInfo() map[string]any {
	h := map[string]any{}
	if n, err := os.Hostname(); err == nil {
		h["hostname"] = n
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h["kernel"] = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				h["cpu_model"] = strings.TrimSpace(v)
				break
			}
		}
		h["hypervisor"] = strings.Contains(string(b), " hypervisor")
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %g kB", &kb); err == nil {
			h["mem_gib"] = kb / (1 << 20)
		}
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		if len(f) >= 3 {
			h["load_avg"] = strings.Join(f[:3], " ")
		}
	}
	return h
}
