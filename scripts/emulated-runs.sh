#!/bin/sh
# Runs haptex against its own device emulator the way docs/safety.md
# measures it: one `devices emulate`, then N runs of DURATION, and prints
# for each run the load average, its device-silent trips and the links'
# gap lines (the device's own clock says whether the device sent nothing
# or its sample was held on the way; at most one line a second a device),
# then the emulator's own lateness and standby takeovers.
#
#   scripts/emulated-runs.sh BINARY [N] [DURATION]     (as root, for SCHED_FIFO)
#
# Run it with nothing else on the machine to measure the code rather than
# the load: the bytes pass through the kernel's normal-priority tty worker.
set -eu
bin=${1:?usage: emulated-runs.sh BINARY [N] [DURATION]}
n=${2:-3}
dur=${3:-60s}
dir=$(mktemp -d)
trap 'kill -INT $emu 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"' EXIT
"$bin" devices emulate -dir "$dir/emu" >"$dir/emu.log" 2>&1 </dev/null &
emu=$!
while [ ! -e "$dir/emu/devices.toml" ]; do
	kill -0 $emu 2>/dev/null || { cat "$dir/emu.log"; exit 1; }
	sleep 0.1
done
for i in $(seq 1 "$n"); do
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	"$bin" run -devices "$dir/emu/devices.toml" -duration "$dur" -out "$dir/runs" >"$dir/run$i.log" 2>&1 || true
	silent=$(grep -cE '^ +[0-9.]+ s +[a-z]+ device-silent' "$dir/run$i.log" || true)
	nothing=$(grep -c 'the device sent nothing' "$dir/run$i.log" || true)
	held=$(grep -c 'held on the way' "$dir/run$i.log" || true)
	echo "run $i (load $load): $silent device-silent trips; gap lines: $nothing 'sent nothing', $held 'held on the way'"
done
kill -INT $emu
wait $emu || true
grep "standby thread did" "$dir/emu.log" || true
