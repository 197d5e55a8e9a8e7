#!/usr/bin/python3
"""Reference values for the tactile package tests, computed independently of
the Go code with NumPy and SciPy. Run with Debian's python3-scipy:

    /usr/bin/python3 tactile/testdata/reference.py > tactile/testdata/reference.json

1. "metamer": the two-sine metamer that minimises the larger of the two
   channels' errors in felt sensation level (dB above threshold, levels
   below threshold counting as 0 dB) over non-negative squared amplitudes:
   the exact solution where it is non-negative (numpy.linalg.solve), else
   the best of the two edges (one sine alone), each found numerically with
   scipy.optimize.minimize_scalar over the sine's level, started from a
   fine scan of it. "worst_db" is the larger error it leaves.
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
   for each stroke come from the same solve as in 1.
3. "friction": the same strokes with a friction displacement of the pad
   added to the height: variance SIGMA_F^2 with the spectrum's shape,
   weighted by 1 / (1 + (f / CORNER)^2), the pad's tangential compliance
   past its corner frequency (tactile.Fingertip).
"""
import json
import numpy as np
from scipy.optimize import minimize_scalar

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


def felt(p):
    return np.maximum(10 * np.log10(np.maximum(p, 1e-300)), 0)


def worst_db(m, e, x):
    return float(np.max(np.abs(felt(m @ x) - felt(e))))


def metamer(m, e):
    x = np.linalg.solve(m, e)
    if np.all(x >= 0):
        return x
    best, best_err = None, np.inf
    for k in (0, 1):  # one sine alone
        def err(lx, k=k):
            x = np.zeros(2)
            x[k] = 10.0 ** lx
            return worst_db(m, e, x)
        lo = np.log10(min(e) / m[:, k].max()) - 3
        hi = np.log10(max(e) / m[:, k].min()) + 3
        scan = np.linspace(lo, hi, 4001)
        i = int(np.argmin([err(v) for v in scan]))
        step = scan[1] - scan[0]
        r = minimize_scalar(err, bounds=(scan[i] - step, scan[i] + step), method="bounded",
                            options={"xatol": 1e-12})
        if r.fun < best_err:
            best_err = r.fun
            best = np.zeros(2)
            best[k] = 10.0 ** r.x
    return best


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


SIGMA_F = 4e-6   # friction displacement of the pad below its corner [m]
CORNER = 100.0   # [Hz]


def excitation(dir_rad, speed, sigma_f=0.0):
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
    var_um2 = (SIGMA * 1e6) ** 2 + (sigma_f * 1e6) ** 2 / (1 + (f / CORNER) ** 2)
    e_np = 2 * float((wgt * var_um2 * w2(NP_F, NP_DB, f)).sum())
    e_p = 2 * float((wgt * var_um2 * w2(P_F, P_DB, f)).sum())
    return e_np, e_p


def main():
    rng = np.random.default_rng(6)
    m = drive_matrix()
    out = {"generator": "tactile/testdata/reference.py"}
    cases = []
    for _ in range(40):
        e = 10 ** rng.uniform(-2, 5, size=2)
        x = metamer(m, e)
        cases.append({"e": e.tolist(), "x": x.tolist(), "worst_db": worst_db(m, e, x)})
    out["metamer"] = {"m": m.tolist(), "cases": cases}
    ex = []
    for d in (0, 17, 45, 90, 133):
        for v in (0.01, 0.02, 0.05, 0.08, 0.2, 0.5):
            e = np.array(excitation(np.radians(d), v))
            x = metamer(m, e)
            ex.append({"dir_deg": d, "speed": v, "e": e.tolist(),
                       "a40": float(np.sqrt(x[0])), "a320": float(np.sqrt(x[1]))})
    out["excitation"] = {"n": N, "dx": DX, "sigma": SIGMA, "strokes": ex}
    fr = []
    for d in (0, 45, 90):
        for v in (0.005, 0.02, 0.08, 0.3):
            e = np.array(excitation(np.radians(d), v, SIGMA_F))
            fr.append({"dir_deg": d, "speed": v, "e": e.tolist()})
    out["friction"] = {"sigma_f": SIGMA_F, "corner_hz": CORNER, "strokes": fr}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
