#!/usr/bin/env python3
"""ttyworker: what kept the kernel's tty worker from a core during a run?

    perf record -o tty.data -a -e sched:sched_switch -e sched:sched_waking -- sleep 20
        (while `haptex run -devices` runs against `haptex devices emulate`)
    perf script -i tty.data -F comm,tid,pid,cpu,time,event,trace > tty.txt
    python3 scripts/ttyworker.py tty.txt [MIN_MS]

Every byte written to a terminal reaches its reader through a kernel worker
thread of the unbound workqueue (kworker/u*, normal priority). For each
time such a worker was runnable but not running (from its wake-up, or from
being preempted, to its next switch in) it notes who held the core it then
ran on. It prints the distribution of those waits and, for the waits of
MIN_MS (default 1) or more, the threads that held the core (total time, and
in how many waits each held it longest), then the longest waits. A thread
is named by process, thread id, command and kernel priority: 120 is nice 0,
130 nice 10, below 100 real time (99 - priority: 29 is SCHED_FIFO 70).

Standard library only.
"""
import bisect
import collections
import re
import sys

LINE = re.compile(r'^\s*(.+?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$')
SWITCH = re.compile(r'prev_comm=(.*) prev_pid=(\d+) prev_prio=(\d+) prev_state=(\S+) ==> next_comm=(.*) next_pid=(\d+) next_prio=(\d+)')
WAKING = re.compile(r'comm=(.*) pid=(\d+) prio=(\d+) target_cpu=(\d+)')


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    min_s = float(sys.argv[2]) / 1e3 if len(sys.argv) > 2 else 1e-3
    names, pids = {}, {}
    runnable = {}  # worker tid -> time it became runnable
    waits = []  # (seconds, from, to, tid, cpu)
    spans = collections.defaultdict(list)  # cpu -> [(start, end, tid, prio)]
    cur = {}
    with open(sys.argv[1]) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            _, pid, tid, cpu, t, ev, rest = m.groups()
            t, cpu = float(t), int(cpu)
            pids[int(tid)] = int(pid)
            if ev == 'sched:sched_waking':
                w = WAKING.match(rest)
                if w and w.group(1).startswith('kworker/u'):
                    runnable.setdefault(int(w.group(2)), t)
            elif ev == 'sched:sched_switch':
                s = SWITCH.match(rest)
                if not s:
                    continue
                pc, pp, _, ps, nc, np_, npr = s.groups()
                pp, np_ = int(pp), int(np_)
                names[pp], names[np_] = pc, nc
                if cpu in cur:
                    st, ti, pr = cur[cpu]
                    spans[cpu].append((st, t, ti, pr))
                cur[cpu] = (t, np_, int(npr))
                if pc.startswith('kworker/u') and ps.startswith('R'):
                    runnable[pp] = t  # preempted while runnable
                if np_ in runnable:
                    r = runnable.pop(np_)
                    waits.append((t - r, r, t, np_, cpu))
    if not waits:
        sys.exit('no kworker/u waits in the record (were sched_switch and sched_waking recorded with -a?)')
    starts = {c: [s[0] for s in spans[c]] for c in spans}

    def holders(cpu, a, b):
        held = collections.Counter()
        i = max(0, bisect.bisect_right(starts.get(cpu, []), a) - 1)
        while i < len(spans[cpu]) and spans[cpu][i][0] < b:
            st, en, ti, pr = spans[cpu][i]
            if min(en, b) > max(st, a):
                held[(ti, pr)] += min(en, b) - max(st, a)
            i += 1
        return held

    def name(ti, pr):
        return 'pid %s tid %s %s prio %d' % (pids.get(ti, '?'), ti, names.get(ti, '?'), pr)

    waits.sort()
    n = len(waits)
    print('kworker/u runnable waits: %d; p50 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms; over 1 ms %d, 2 ms %d, 4 ms %d' % (
        n, waits[n // 2][0] * 1e3, waits[n * 99 // 100][0] * 1e3, waits[n * 999 // 1000][0] * 1e3, waits[-1][0] * 1e3,
        sum(w[0] > 1e-3 for w in waits), sum(w[0] > 2e-3 for w in waits), sum(w[0] > 4e-3 for w in waits)))
    total, most = collections.Counter(), collections.Counter()
    long_waits = [w for w in waits if w[0] >= min_s]
    for w in long_waits:
        held = holders(w[4], w[1], w[2])
        total.update(held)
        if held:
            most[held.most_common(1)[0][0]] += 1
    print('holders of the worker\'s core in its %d waits of %g ms or more (total ms; waits where it held longest):' % (len(long_waits), min_s * 1e3))
    for k, v in total.most_common(15):
        print('  %-52s %8.1f ms %6d' % (name(*k), v * 1e3, most[k]))
    print('the longest waits:')
    for w in waits[-10:][::-1]:
        held = holders(w[4], w[1], w[2])
        print('  %.6f  %.2f ms on cpu%d: %s' % (w[1], w[0] * 1e3, w[4], ', '.join(
            '%s %.2f ms' % (name(*k), v * 1e3) for k, v in held.most_common(3))))


if __name__ == '__main__':
    main()
