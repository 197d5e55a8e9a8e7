#!/usr/bin/env python3
"""hostpauses: was each late tick of a haptex run a pause of the whole machine?

    ./wakeups 70 pauses.log &        # scripts/wakeups.c, started first
    haptex bench loop -json -duration 60s > loop.json
    python3 scripts/hostpauses.py pauses.log loop.json [session.json ...]

For every tick later than 1 ms that a run lists (`late_ticks` in the bench
JSON, or each loop's in a session.json summary), it looks at the wakeups
threads, one pinned to each core, for the deadlines that fell between the
tick's deadline and its wake-up. If both threads were still asleep until
about when the tick woke, neither core ran any real-time thread in that
time: the machine itself was stopped (on a virtual machine, the host paused
it), and no thread inside it could have run the tick. Otherwise only one
core, or none, was stopped, and the lateness is haptex's to explain.

Standard library only. Times are CLOCK_MONOTONIC, so both programs must
run on the same machine and boot.
"""
import json
import sys

# A tick's thread wakes a few tens of µs after the machine resumes, the
# standby 150 µs after the deadline: allow that much between the C threads'
# wake-up and the tick's.
TOL_NS = 300_000
# A pause that began before the tick's deadline shows at C deadlines before
# it: look this far back.
LOOKBACK_NS = 100_000_000


def read_log(path):
    start = n = None
    late = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                start, n = (int(x) for x in line[1:].split())
                continue
            d, a, b = (int(x) for x in line.split())
            late[d] = (a, b)
    if start is None:
        sys.exit(f"{path}: no '# start_ns deadlines' line; rebuild scripts/wakeups.c")
    return start, n, late


def late_ticks(doc):
    """Yields (loop name, tick) for every late tick the JSON lists."""
    if doc.get("bench") == "loop":
        for t in doc.get("late_ticks") or []:
            yield "haptics", t
        return
    for loop in doc.get("summary", {}).get("loops", []):
        for t in loop.get("late_ticks") or []:
            yield loop["name"], t


def verdict(start, n, late, d, w):
    """What the two C threads did between the deadline d and the wake-up w.

    The machine was stopped if, at some C deadline m before w - TOL_NS
    (and not long before d: a pause that began earlier counts), both
    threads were still asleep at w - TOL_NS."""
    k0 = -(-(d - LOOKBACK_NS - start) // 1_000_000)
    k1 = (w - TOL_NS - 1 - start) // 1_000_000
    if k0 < 0 or k1 >= n:
        return "outside the log", []
    seen = []
    stopped = False
    for k in range(k0, k1 + 1):
        m = start + k * 1_000_000
        a, b = late.get(m, (0, 0))
        if m >= d:
            seen.append(((m - d) / 1e6, a / 1e6, b / 1e6))
        if m + a >= w - TOL_NS and m + b >= w - TOL_NS:
            stopped = True
    if stopped:
        return "machine stopped", seen
    if not seen:
        # The C threads' 1 ms grid had no deadline inside the tick's delay.
        return "too short to tell", seen
    if any(a > 1 and b > 1 for _, a, b in seen):
        return "machine stopped, the tick later still", seen
    if any(a > 0.1 or b > 0.1 for _, a, b in seen):
        return "one core stopped", seen
    return "no core stopped", seen


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    start, n, late = read_log(sys.argv[1])
    counts = {}
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        clock = doc.get("clock") or doc.get("summary", {}).get("clock")
        if not clock:
            sys.exit(f"{path}: no clock origin (a lockstep run, or a session recorded by an older haptex)")
        origin = clock["monotonic_ns"]
        for name, t in late_ticks(doc):
            d = origin + round(t["t_s"] * 1e9)
            w = d + round(t["lateness_us"] * 1e3)
            v, seen = verdict(start, n, late, d, w)
            counts.setdefault(name, {})
            counts[name][v] = counts[name].get(v, 0) + 1
            by = "standby" if t.get("standby") else "own thread"
            cs = ", ".join(f"+{o:.2f} ms: {a:.2f}/{b:.2f}" for o, a, b in seen[:4])
            print(f"{path} {name} t={t['t_s']:.3f} s late {t['lateness_us'] / 1e3:.2f} ms ({by}): {v}  [C threads late, ms: {cs}]")
    for name, c in counts.items():
        print(f"{name}: " + "; ".join(f"{v}: {n}" for v, n in sorted(c.items())))
    if not counts:
        print("no late ticks")


if __name__ == "__main__":
    main()
