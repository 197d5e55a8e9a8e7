#!/bin/sh
# Runs the timing-sensitive packages' tests, built with the race detector,
# ROUNDS times each beside a load of LOAD lockstep showcase runs (each a
# CPU-bound Go process on every core), the way CI runs them beside other
# packages' tests (docs/device-tests-under-load.md). It prints a line per
# run (exit status, seconds, load average) and at the end the passes per
# package; it exits 1 if any run failed, and keeps the failed runs' output
# in DIR (default: a new folder under /tmp, named at the end).
#
#   scripts/under-load.sh [ROUNDS] [LOAD] [PACKAGE...]     (from the repository's top; as root for SCHED_FIFO)
#
# Without packages it runs internal/rt, internal/statebuf and the device
# packages whose tests talk to emulated devices or time their answers.
set -eu
[ -f go.mod ] || { echo "under-load.sh: run it from the repository's top" >&2; exit 2; }
rounds=${1:-3}
load=${2:-2}
[ $# -lt 2 ] || shift 2
[ $# -gt 0 ] || set -- internal/rt internal/statebuf devices/link devices/emu devices/serial \
	devices/hid devices/faulttest devices/devicetest devices/reconnect devices/soak
dir=${DIR:-$(mktemp -d /tmp/under-load.XXXXXX)}
mkdir -p "$dir/bin"
go build -pgo=off -o "$dir/bin/haptex" ./cmd/haptex
for p in "$@"; do
	go test -race -c -o "$dir/bin/$(echo "$p" | tr / _).test" "./$p"
done
top=$(pwd)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null || true; pkill -P $p 2>/dev/null || true; done' EXIT
for i in $(seq 1 "$load"); do
	(while :; do "$dir/bin/haptex" run -lockstep -duration 12s -out "" >/dev/null 2>&1 || exit; done) &
	pids="$pids $!"
done
failed=0
for r in $(seq 1 "$rounds"); do
	for p in "$@"; do
		name=$(echo "$p" | tr / _)
		start=$(date +%s)
		rc=0
		(cd "$top/$p" && "$dir/bin/$name.test" -test.count=1 -test.timeout 20m) >"$dir/$name.$r.log" 2>&1 || rc=$?
		echo "$p round $r: exit $rc, $(($(date +%s) - start)) s, load $(cut -d' ' -f1 /proc/loadavg)"
		if [ $rc -eq 0 ]; then
			rm "$dir/$name.$r.log"
			echo "$p" >>"$dir/passed"
		else
			failed=1
			grep -- '--- FAIL' "$dir/$name.$r.log" | sed 's/^/    /' || true
		fi
	done
done
echo "passes in $rounds rounds:"
for p in "$@"; do
	n=$(grep -cx "$p" "$dir/passed" 2>/dev/null || true)
	echo "  $p ${n:-0}/$rounds"
done
rm -rf "$dir/bin"
[ $failed -eq 0 ] && rm -rf "$dir" || echo "the failed runs' output: $dir"
exit $failed
