#!/usr/bin/python3
"""Where the showcase's contact error lies, phase by phase.

    haptex run -lockstep -duration 12s -out DIR
    scripts/contact-phases.py DIR/session-*/haptics.csv

Reads a showcase session's haptics.csv as haptics.ContactTracking does:
both forces through a 2nd-order 30 Hz Butterworth low-pass, over the ticks
a finger is active and in contact, so its whole-run figure is the
summary's rms_rel. For each phase of the showcase script (devices/twin
DefaultScript; the pinch split at 6.35 s into its onset and its hold) it
prints the RMS error and desired force and the phase's share of rms_rel
(the shares add in quadrature), the pad's speed and acceleration RMS and
the median stiffness rendered. Then, per phase and axis, the slope of a
least-squares fit of the error on the pad's acceleration (the pad's speed
through the same filter, differentiated) and their correlation: an
admittance's error is its virtual mass times the acceleration. Last, the
share of the index's stroke ticks in contact that ask for under 1 mN.
Needs NumPy and SciPy (Debian's python3-scipy).
"""
import sys

import numpy as np
from scipy.signal import butter, sosfilt

PHASES = [("touch", 0, 1.5), ("stroke", 1.5, 5.1), ("pinch onset", 5.1, 6.35),
          ("pinch hold", 6.35, 6.6), ("stretch", 6.6, 8.5), ("release", 8.5, np.inf)]


def main(path):
    d = np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding=None)
    t, dt = d["t_s"], np.median(np.diff(d["t_s"]))
    sos = butter(2, 30, fs=1 / dt, output="sos")
    for f in ("thumb", "index"):
        fd = np.stack([sosfilt(sos, d[f"{f}_fdes_{a}_n"]) for a in "xyz"], 1)
        fm = np.stack([sosfilt(sos, d[f"{f}_fmeas_{a}_n"]) for a in "xyz"], 1)
        v = np.stack([sosfilt(sos, d[f"{f}_v{a}_mps"]) for a in "xyz"], 1)
        acc = np.gradient(v, dt, axis=0)
        e = fm - fd
        m = (d[f"{f}_contact"].astype(str) == "1") & (d[f"{f}_state"].astype(str) == "active")
        e2, d2 = (e ** 2).sum(1), (fd ** 2).sum(1)
        total = d2[m].sum()
        if total == 0:
            print(f"{f}: no tick in contact")
            continue
        print(f"{f}: rms_rel {np.sqrt(e2[m].sum() / total):.4f} over {m.sum()} ticks in contact")
        for name, a, b in PHASES:
            pm = m & (t >= a) & (t < b)
            if not pm.any():
                continue
            fits = []
            for i, ax in enumerate("xyz"):
                x, y = acc[pm, i], e[pm, i]
                if (x * x).sum() > 0 and x.std() > 0 and y.std() > 0:
                    fits.append(f"{ax} {1e3 * (x * y).sum() / (x * x).sum():.0f} g (r {np.corrcoef(x, y)[0, 1]:.2f})")
            rms = lambda x, k: ", ".join(f"{k * np.sqrt((x[pm, i] ** 2).mean()):.2f}" for i in range(3))
            print(f"  {name:12s} {pm.sum():5d} ticks: error {1e3 * np.sqrt(e2[pm].mean()):.1f} mN against "
                  f"{1e3 * np.sqrt(d2[pm].mean()):.1f} mN asked, share {np.sqrt(e2[pm].sum() / total):.3f}\n"
                  f"    pad speed RMS x, y, z [mm/s] {rms(v, 1e3)}; acceleration RMS [m/s²] {rms(acc, 1)}; "
                  f"median rendered stiffness {np.median(d[f'{f}_stiffness_npm'][pm]):.0f} N/m\n"
                  f"    error on acceleration: {', '.join(fits)}")
        if f == "index":
            pm = m & (t >= 1.5) & (t < 5.1)
            raw = np.sqrt(sum(d[f"index_fdes_{a}_n"] ** 2 for a in "xyz"))[pm]
            if raw.size:
                print(f"  stroke: {100 * np.mean(raw < 1e-3):.0f} % of its ticks in contact ask under 1 mN "
                      f"(median {1e3 * np.median(raw):.2f} mN)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: contact-phases.py SESSION/haptics.csv")
    main(sys.argv[1])
