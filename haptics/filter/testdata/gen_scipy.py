#!/usr/bin/python3
"""Reference filters for haptics/filter, computed with SciPy.

Run with Debian's interpreter (python3-scipy), from this directory:

    /usr/bin/python3 gen_scipy.py > scipy_ref.json

"designs" holds scipy.signal.butter / cheby1 (output='sos', fs=...) over a grid
of orders, corners and ripples at 1 kHz and 10 kHz sampling; sections appear in
SciPy's own order (zpk2sos, pairing='nearest'), each row [b0 b1 b2 a0 a1 a2].
"responses" holds, for the filters the force controller is likely to use, the
frequency response (sosfreqz), the group delay in seconds (sum of the sections'
scipy.signal.group_delay, and the same formula in 50-digit decimal arithmetic
as a tighter check) and the first samples of the step response (sosfilt).
"""
import json
import sys
from decimal import Decimal, getcontext

import numpy as np
import scipy
from scipy import signal

ORDERS = range(1, 9)
RIPPLES_DB = [0.1, 1.0, 3.0]
GRID = {
    1000.0: {
        "lowpass": [[1.0], [30.0], [100.0], [300.0], [450.0]],
        "highpass": [[1.0], [30.0], [100.0], [300.0], [450.0]],
        "bandpass": [[20.0, 60.0], [100.0, 300.0], [5.0, 450.0]],
    },
    10000.0: {
        "lowpass": [[10.0], [100.0], [1000.0], [4500.0]],
        "highpass": [[10.0], [100.0], [1000.0], [4500.0]],
        "bandpass": [[50.0, 200.0], [1000.0, 3000.0]],
    },
}


def design(kind, order, ripple, band, fs, corners):
    wn = corners[0] if len(corners) == 1 else corners
    if kind == "butter":
        return signal.butter(order, wn, btype=band, output="sos", fs=fs)
    return signal.cheby1(order, ripple, wn, btype=band, output="sos", fs=fs)


def record(kind, order, ripple, band, fs, corners):
    sos = design(kind, order, ripple, band, fs, corners)
    return {
        "kind": kind,
        "order": order,
        "ripple_db": ripple,
        "band": band,
        "fs": fs,
        "corners": corners,
        "sos": sos.tolist(),
    }


def _pi():
    """pi to the context precision (recipe from the decimal documentation)."""
    getcontext().prec += 2
    three = Decimal(3)
    lasts, t, s, n, na, d, da = 0, three, 3, 1, 0, 0, 24
    while s != lasts:
        lasts = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = (t * n) / d
        s += t
    getcontext().prec -= 2
    return +s


def _cos_sin(x):
    """cos(x), sin(x) by Taylor series at the context precision."""
    getcontext().prec += 2
    c, s = Decimal(0), Decimal(0)
    term, k = Decimal(1), 0
    while True:
        new = c + term if k % 4 == 0 else c - term if k % 4 == 2 else c
        news = s + term if k % 4 == 1 else s - term if k % 4 == 3 else s
        if new == c and news == s and k > 1:
            break
        c, s = new, news
        k += 1
        term = term * x / k
    getcontext().prec -= 2
    return +c, +s


def group_delay_exact(sos, f, fs):
    """Group delay in seconds, evaluated in 50-digit decimal arithmetic.

    For each polynomial P(z) = sum c_k z^-k, tau_P = Re(sum k c_k e^{-jwk} /
    sum c_k e^{-jwk}); a section contributes tau_B - tau_A. Free of the
    float64 cancellation that scipy.signal.group_delay suffers near zeros on
    the unit circle.
    """
    getcontext().prec = 50
    w = 2 * _pi() * Decimal(f) / Decimal(fs)
    c1, s1 = _cos_sin(w)
    e = [(Decimal(1), Decimal(0)), (c1, -s1), (2 * c1 * c1 - 1, -2 * s1 * c1)]

    def tau(c):
        nr = sum(k * c[k] * e[k][0] for k in range(3))
        ni = sum(k * c[k] * e[k][1] for k in range(3))
        dr = sum(c[k] * e[k][0] for k in range(3))
        di = sum(c[k] * e[k][1] for k in range(3))
        return (nr * dr + ni * di) / (dr * dr + di * di)

    total = Decimal(0)
    for sec in sos:
        b = [Decimal(v) for v in sec[:3]]
        a = [Decimal(v) for v in sec[3:]]
        total += tau(b) - tau(a)
    return float(total / Decimal(fs))


def response(kind, order, ripple, band, fs, corners):
    rec = record(kind, order, ripple, band, fs, corners)
    sos = np.array(rec["sos"])
    freqs = np.array([0.0, 1.0, 5.0, 10.0, 20.0, 30.0, 50.0, 75.0, 100.0,
                      150.0, 200.0, 300.0, 400.0, 490.0]) * fs / 1000.0
    if band != "lowpass":
        # Zeros at z = 1 make the phase, hence group_delay, singular at DC.
        freqs = freqs[1:]
    _, h = signal.sosfreqz(sos, worN=freqs, fs=fs)
    gd = np.zeros_like(freqs)
    for sec in sos:
        _, g = signal.group_delay((sec[:3], sec[3:]), w=freqs, fs=fs)
        gd += g
    step = signal.sosfilt(sos, np.ones(400))
    rec.update({
        "freqs_hz": freqs.tolist(),
        "h_re": h.real.tolist(),
        "h_im": h.imag.tolist(),
        "group_delay_s": (gd / fs).tolist(),
        "group_delay_exact_s": [group_delay_exact(rec["sos"], f, fs) for f in freqs],
        "step": step.tolist(),
    })
    return rec


def main():
    designs = []
    for fs, bands in GRID.items():
        for band, cornerset in bands.items():
            for corners in cornerset:
                for order in ORDERS:
                    designs.append(record("butter", order, 0.0, band, fs, corners))
                    for rp in RIPPLES_DB:
                        designs.append(record("cheby1", order, rp, band, fs, corners))
    responses = [
        response("butter", 2, 0.0, "lowpass", 1000.0, [30.0]),
        response("butter", 2, 0.0, "lowpass", 1000.0, [50.0]),
        response("butter", 2, 0.0, "lowpass", 1000.0, [100.0]),
        response("cheby1", 3, 0.5, "lowpass", 1000.0, [100.0]),
        response("cheby1", 3, 1.0, "lowpass", 1000.0, [200.0]),
        response("butter", 4, 0.0, "highpass", 10000.0, [100.0]),
        response("cheby1", 2, 1.0, "bandpass", 1000.0, [20.0, 60.0]),
    ]
    json.dump({
        "generator": "gen_scipy.py",
        "scipy": scipy.__version__,
        "numpy": np.__version__,
        "designs": designs,
        "responses": responses,
    }, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
