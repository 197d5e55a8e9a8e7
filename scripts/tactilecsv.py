#!/usr/bin/env python3
"""tactilecsv: what reached the pins in a recorded session (docs/tactile.md).

    haptex run -lockstep -duration 40s -out /tmp/s
    python3 scripts/tactilecsv.py /tmp/s/session-*/tactile.csv

Per finger, over the frames in contact: how many drove no pin (and of those
how many at a normal force of 0.01 N or more), the pins driven against the
normal force, the pins clamped to the device limits and compressed into the
comfortable range, the highest pin sensation levels, the largest pin
amplitudes, the channel solve's errors in felt level (a channel below its
threshold counting as at it) where it is inexact, and the delivered amplitudes
against the commanded ones (pins above 0.5 µm at 40 Hz, 0.05 µm at 320 Hz).

Standard library only.
"""
import csv
import math
import sys

BINS = [0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 5]
PINS = 24


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for finger in ("thumb", "index"):
        n = finger + "_"
        num = lambda r, k: float(r[n + k])
        c = [r for r in rows if r[n + "contact"] == "1"]
        if not c:
            print(f"{finger}: no contact")
            continue
        none = [r for r in c if num(r, "driven_pins") == 0]
        none_pressed = [r for r in none if num(r, "normal_force_n") >= 0.01]
        print(f"{finger}: {len(c)} frames in contact, {len(none)} driving no pin "
              f"({len(none_pressed)} of them at 0.01 N or more)")
        for lo, hi in zip(BINS, BINS[1:]):
            sel = [int(num(r, "driven_pins")) for r in c if lo <= num(r, "normal_force_n") < hi]
            if sel:
                print(f"  {lo:5.3f}-{hi:5.3f} N: {len(sel):4d} frames, {min(sel):2d}-{max(sel):2d} pins driven")
        clamped = sum(num(r, "clamped_pins") for r in c)
        compressed = sum(num(r, "compressed") for r in c)
        sl40 = max(num(r, "peak_sl40_db") for r in c)
        sl320 = max(num(r, "peak_sl320_db") for r in c)
        a40 = max(num(r, f"a40_pin{p:02d}_um") for r in c for p in range(PINS))
        a320 = max(num(r, f"a320_pin{p:02d}_um") for r in c for p in range(PINS))
        print(f"  clamped {clamped:.0f}, compressed {compressed:.0f} pin amplitudes; highest pin "
              f"{sl40:.1f} dB SL at 40 Hz ({a40:.1f} um), {sl320:.1f} dB SL at 320 Hz ({a320:.2f} um)")
        inexact = [r for r in c if r[n + "exact"] == "0" and num(r, "driven_pins") > 0]
        if inexact:
            # The solve's objective: the error in felt level, levels below
            # threshold counting as 0 dB SL.
            def felt(r, ch):
                lvl = num(r, ch + "_level_db")
                return max(lvl + num(r, ch + "_residual_db"), 0) - max(lvl, 0)
            res = [max(abs(num(r, "np_residual_db")), abs(num(r, "p_residual_db"))) for r in inexact]
            fe = [max(abs(felt(r, "np")), abs(felt(r, "p"))) for r in inexact]
            print(f"  channel solve inexact in {len(inexact)} driven frames: larger error in felt level "
                  f"median {pct(fe, 0.5):.2f} dB, max {max(fe):.2f} dB (raw residual median {pct(res, 0.5):.1f} dB)")
        ratios = []
        for r in c:
            for band, floor in (("a40", 0.5), ("a320", 0.05)):
                for p in range(PINS):
                    cmd = num(r, f"{band}_pin{p:02d}_um")
                    got = num(r, f"{band}_pin{p:02d}_delivered_um")
                    if cmd > floor and not math.isnan(got):
                        ratios.append(got / cmd)
        if ratios:
            print(f"  delivered/commanded over {len(ratios)} pin amplitudes: p5 {pct(ratios, 0.05):.3f}, "
                  f"median {pct(ratios, 0.5):.3f}, p95 {pct(ratios, 0.95):.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: tactilecsv.py SESSION/tactile.csv")
    main(sys.argv[1])
