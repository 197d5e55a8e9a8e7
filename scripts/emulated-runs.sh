#!/bin/sh
# Runs haptex against its own device emulator the way docs/safety.md
# measures it ("Scheduling on a shared machine"): one `devices emulate`,
# then N runs of DURATION, no fault injected. The goal: at most one
# device-silent trip in all of three 60 s runs.
#
#   scripts/emulated-runs.sh BINARY [N] [DURATION]     (as root, for SCHED_FIFO)
#
# For each run it prints the load average before and after, the
# device-silent trips (each trip is one finger; a stall of the line trips
# both at once) and the other trips, and the links' gap lines: when a
# device's sample comes more than 4 ms late, its link says (at most once
# a second a device) whether the
# device's own clock shows that the device sent nothing ("sent nothing":
# the emulator's fault) or sent in time and the bytes were "held on the
# way" (the kernel's tty worker, a normal-priority thread, waited for a
# core: the machine's load, or a thread of the host's). At the end: the
# emulator's own lateness, standby takeovers and physics stalls, and the
# verdict. Run it with nothing else on the machine (load under 1) to
# measure the code rather than the load. With KEEP=DIR set, the run and
# emulator logs are kept in DIR (it must not exist yet).
set -eu
bin=${1:?usage: emulated-runs.sh BINARY [N] [DURATION]}
n=${2:-3}
dur=${3:-60s}
dir=$(mktemp -d)
keep=${KEEP:-}
[ -z "$keep" ] || [ ! -e "$keep" ] || { echo "emulated-runs.sh: KEEP=$keep exists" >&2; exit 2; }
trap 'kill -INT $emu 2>/dev/null || true; wait 2>/dev/null || true; [ -z "$keep" ] || cp -r "$dir" "$keep"; rm -rf "$dir"' EXIT
echo "$("$bin" version 2>&1 | head -1); $(nproc) cores; $n runs of $dur; goal: at most 1 device-silent trip in all runs"
"$bin" devices emulate -dir "$dir/emu" >"$dir/emu.log" 2>&1 </dev/null &
emu=$!
while [ ! -e "$dir/emu/devices.toml" ]; do
	kill -0 $emu 2>/dev/null || { cat "$dir/emu.log"; exit 1; }
	sleep 0.1
done
grep -m1 "their loop at" "$dir/emu.log" || true
total=0
more=""
for i in $(seq 1 "$n"); do
	# The emulated hand plays its script from the start at a HELLO after
	# 200 ms without host traffic (devices emulate says so): a run started
	# sooner would find the hand at rest where the last run left it.
	sleep 0.3
	load=$(cut -d' ' -f1 /proc/loadavg)
	"$bin" run -devices "$dir/emu/devices.toml" -duration "$dur" -out "$dir/runs" >"$dir/run$i.log" 2>&1 || true
	load2=$(cut -d' ' -f1 /proc/loadavg)
	silent=$(grep -cE '^ +[0-9.]+ s +[a-z]+ device-silent' "$dir/run$i.log" || true)
	trips=$(grep -cE '^ +[0-9.]+ s +[a-z]+ [a-z-]+' "$dir/run$i.log" || true)
	machine=$(grep -cE '^ +[0-9.]+ s +[a-z]+ device-silent: the 1 kHz loop itself woke' "$dir/run$i.log" || true)
	exo_nothing=$(grep -c 'exo: no sample.*the device sent nothing' "$dir/run$i.log" || true)
	exo_held=$(grep -c 'exo: no sample.*held on the way' "$dir/run$i.log" || true)
	tac_held=$(grep -c 'tactile: no sample.*held on the way' "$dir/run$i.log" || true)
	all=$(sed -n 's/^trips: \([0-9]*\).*/\1/p' "$dir/run$i.log")
	atleast=""
	[ "${all:-0}" -le "$trips" ] || { atleast="at least "; more=" or more"; }
	total=$((total + silent))
	echo "run $i (load $load -> $load2): $atleast$silent device-silent trips ($machine of them after the host's own 1 kHz loop woke late: the machine stopped it), $atleast$((trips - silent)) other trips (${all:-0} in all; the summary lists the first 64); exoskeleton gap lines: $exo_nothing 'sent nothing', $exo_held 'held on the way'; tactile 'held on the way': $tac_held"
	# Each trip (time into the run and finger): both fingers at one time
	# is a stall of every line, one alone a stall of its device's.
	grep -E '^ +[0-9.]+ s +[a-z]+ device-silent' "$dir/run$i.log" | cut -d: -f1 | sed 's/^ */    /' || true
done
kill -INT $emu
wait $emu || true
grep -E "standby thread did|physics (never )?stalled" "$dir/emu.log" || true
verdict="met"
[ "$total" -le 1 ] || verdict="not met"
echo "device-silent trips in all $n runs: $total$more: goal $verdict (a verdict about the code only on a quiet machine: see the loads above)"
