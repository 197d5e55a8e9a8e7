#!/usr/bin/python3
"""Reference values for the tactile package tests, computed independently of
the Go code with NumPy and SciPy. Run with Debian's python3-scipy:

    /usr/bin/python3 tactile/testdata/reference.py > tactile/testdata/reference.json

1. "nnls": the two-sine metamer as non-negative least squares in relative
   error, solved with scipy.optimize.nnls on the row-scaled system
   (row c divided by its target e_c).
2. "excitation": channel excitations of strokes over an analytic 2D height
   spectrum (test_spectrum below, mirrored in surface_test.go), by brute-force
   integration: every k-space cell is a cell of uniform spectral density,
   integrated with 16 x 16 points, each point at temporal frequency
   f = speed |k . e_dir|, weighted by 2 W_c(f)^2 with W_c = 10^(-T_c(f)/20),
   T_c interpolated linearly in dB against log2 f through the tabulated
   threshold points and extrapolated with the end slopes. As the Go code
   defines the surface: P(k) = P(-k), nothing outside |k| <= k_Nyquist, and
   the DC cell replaced by a round hole of the same area whose surroundings
   take the mean density of its four neighbours. The metamer amplitudes
   for each stroke come from the same NNLS as in 1.
"""
import json
import numpy as np
from scipy.optimize import nnls

# Threshold tables, dB re 1 um peak (channels.go: PacinianReference,
# NonPacinianReference).
P_F = [10, 20, 40, 80, 160, 250, 300, 320, 400, 500, 1000]
P_DB = [35.73, 23.73, 11.73, -0.27, -12.27, -20, -20, -19.07, -15.85, -12.63, -2.63]
NP_F = [1, 2, 4, 8, 60, 80, 160, 250, 320, 400, 500, 1000]
NP_DB = [30, 24, 18, 12, 12, 16.15, 26.15, 32.59, 36.15, 39.37, 42.59, 52.59]
PIN_PENALTY = 3.0


def threshold(fs, dbs, f):
    lf = np.log2(np.asarray(f, dtype=float))
    x = np.log2(fs)
    y = np.asarray(dbs, dtype=float)
    out = np.interp(lf, x, y)
    lo = lf < x[0]
    hi = lf > x[-1]
    out[lo] = y[0] + (lf[lo] - x[0]) * (y[1] - y[0]) / (x[1] - x[0])
    out[hi] = y[-1] + (lf[hi] - x[-1]) * (y[-1] - y[-2]) / (x[-1] - x[-2])
    return out


def w2(fs, dbs, f):
    return 10.0 ** (-threshold(fs, dbs, f) / 10)


def drive_matrix():
    t = lambda fs, dbs, f: float(threshold(fs, dbs, [f])[0])
    np40, np320 = t(NP_F, NP_DB, 40), t(NP_F, NP_DB, 320)
    p40, p320 = t(P_F, P_DB, 40) + PIN_PENALTY, t(P_F, P_DB, 320) + PIN_PENALTY
    return np.array([[10 ** (-np40 / 10), 10 ** (-np320 / 10)],
                     [10 ** (-p40 / 10), 10 ** (-p320 / 10)]])


def metamer(m, e):
    a = m / e[:, None]
    x, _ = nnls(a, np.ones(2))
    return x


# Analytic test spectrum: an anisotropic self-affine part plus four pairs
# of Gaussian peaks. Mirrored in surface_test.go (testSpectrum).
N, DX = 128, 20e-6
SIGMA = 5e-6  # height standard deviation [m]


def test_spectrum():
    dk = 1 / (N * DX)
    k = (np.arange(N) - N // 2) * dk
    ku, kv = np.meshgrid(k, k)  # [j, i]
    lu, lv = 0.3e-3, 0.2e-3
    p = (1 + (ku * lu) ** 2 + (kv * lv) ** 2) ** -1.5
    p /= p.sum()
    peaks = [(3.3e3, 0, 1.0), (0, 2.5e3, 0.6), (2e3, 2e3, 0.4), (6.6e3, 1e3, 0.3)]
    g = np.zeros_like(p)
    s = 0.15e3
    for pu, pv, a in peaks:
        for sgn in (1, -1):
            g += a * np.exp(-((ku - sgn * pu) ** 2 + (kv - sgn * pv) ** 2) / (2 * s * s))
    g /= g.sum()
    return 0.4 * p + 0.6 * g, dk, ku, kv


def prepared():
    p, dk, ku, kv = test_spectrum()
    kn = N // 2 * dk
    p = np.where(np.hypot(ku, kv) > kn, 0.0, p)
    p = 0.5 * (p + np.roll(np.flip(p, (0, 1)), 1, (0, 1)))  # P(k) = P(-k) on the centred grid
    c = N // 2
    p[c, c] = (p[c, c - 1] + p[c, c + 1] + p[c - 1, c] + p[c + 1, c]) / 4
    return p, dk, ku, kv


def excitation(dir_rad, speed):
    p, dk, ku, kv = prepared()
    S = 16
    off = ((np.arange(S) + 0.5) / S - 0.5) * dk
    ou, ov = np.meshgrid(off, off)
    mask = p > 0
    pk, cu, cv = p[mask], ku[mask], kv[mask]
    su = cu[:, None] + ou.ravel()[None, :]
    sv = cv[:, None] + ov.ravel()[None, :]
    hole = dk / np.sqrt(np.pi)
    keep = np.hypot(su, sv) >= hole
    wgt = np.where(keep, 1.0, 0.0) * (pk[:, None] / (S * S))
    wgt /= wgt.sum()  # the Go code scales each direction to unit sum
    f = speed * np.abs(su * np.cos(dir_rad) + sv * np.sin(dir_rad))
    f = np.maximum(f, 1e-9)
    var_um2 = (SIGMA * 1e6) ** 2
    e_np = 2 * var_um2 * float((wgt * w2(NP_F, NP_DB, f)).sum())
    e_p = 2 * var_um2 * float((wgt * w2(P_F, P_DB, f)).sum())
    return e_np, e_p


def main():
    rng = np.random.default_rng(6)
    m = drive_matrix()
    out = {"generator": "tactile/testdata/reference.py", "scipy_nnls": True}
    cases = []
    for _ in range(40):
        e = 10 ** rng.uniform(-2, 5, size=2)
        x = metamer(m, e)
        cases.append({"e": e.tolist(), "x": x.tolist()})
    out["nnls"] = {"m": m.tolist(), "cases": cases}
    ex = []
    for d in (0, 17, 45, 90, 133):
        for v in (0.01, 0.02, 0.05, 0.08, 0.2, 0.5):
            e = np.array(excitation(np.radians(d), v))
            x = metamer(m, e)
            ex.append({"dir_deg": d, "speed": v, "e": e.tolist(),
                       "a40": float(np.sqrt(x[0])), "a320": float(np.sqrt(x[1]))})
    out["excitation"] = {"n": N, "dx": DX, "sigma": SIGMA, "strokes": ex}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
