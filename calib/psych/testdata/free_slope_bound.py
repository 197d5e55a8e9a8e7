#!/usr/bin/python3
"""Reference values for PF.ThresholdSDBoundFreeSlope.

The Cramér–Rao bound on the threshold at criterion 0.5 when the slope
parameter beta is a nuisance: the least [M^-1]_tt over designs of one or two
stimuli (Caratheodory: a c-optimal design for two parameters needs at most
two), found by brute-force search over the design space (primal), not by
Elfving's support function as the Go code does (dual). Also the bound with
beta known (best single stimulus). Per trial info M = sum w f f^T with
f = grad psi / sqrt(psi (1 - psi)) in (t, beta) at fixed threshold t.

Run: /usr/bin/python3 free_slope_bound.py > free_slope_bound.json
"""
import json
import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, ndtr

N = 60
CASES = [
    # form, threshold, beta, gamma, lambda
    ("weibull", 10.0, 3.5, 0.5, 0.01),
    ("weibull", 10.0, 1.5, 0.5, 0.01),
    ("logistic", 2.35, 3.0, 0.02, 0.02),
    ("logistic", 4.0, 2.0, 0.5, 0.02),
    ("cumnormal", 1.0, 4.0, 0.25, 0.0),
    ("weibull", 2.0, 2.0, 0.0, 0.05),
]


def score(form, t, b, g, l, x):
    """f_t, f_b at stimuli x (arrays)."""
    eps_t, eps_b = 1e-6 * t, 1e-6 * b

    def psi(tt, bb):
        if form == "weibull":
            F = -np.expm1(-np.log(2) * (x / tt) ** bb)
        elif form == "logistic":
            F = expit(bb * (x - tt))
        else:
            F = ndtr(bb * (x - tt))
        return g + (1 - g - l) * F

    p = psi(t, b)
    dt = (psi(t + eps_t, b) - psi(t - eps_t, b)) / (2 * eps_t)
    db = (psi(t, b + eps_b) - psi(t, b - eps_b)) / (2 * eps_b)
    s = np.sqrt(p * (1 - p))
    return dt / s, db / s


def bounds(form, t, b, g, l):
    # stimuli spanning F from 1e-4 to 1 - 1e-4
    if form == "weibull":
        lo, hi = t * (-np.log1p(-1e-4) / np.log(2)) ** (1 / b), t * (np.log(1e4) / np.log(2)) ** (1 / b)
        xs = np.geomspace(lo, hi, 4001)
    else:
        z = 6 / b
        xs = np.linspace(t - z, t + z, 4001)
    ft, fb = score(form, t, b, g, l, xs)
    known = 1 / np.sqrt(N * np.max(ft * ft))

    def var(xx, w):
        a, c = score(form, t, b, g, l, np.asarray(xx))
        m11 = w * a[0] ** 2 + (1 - w) * a[1] ** 2
        m12 = w * a[0] * c[0] + (1 - w) * a[1] * c[1]
        m22 = w * c[0] ** 2 + (1 - w) * c[1] ** 2
        det = m11 * m22 - m12 * m12
        if det <= 1e-14 * m11 * m22:
            return np.inf
        return m22 / det

    # coarse grid over pairs (vectorised), then local refinement
    a, c = ft[::20], fb[::20]
    xg = xs[::20]
    at_t = score(form, t, b, g, l, np.array([t]))[0][0]
    best = (1 / at_t**2, t, t, 0.5)
    for w in np.linspace(0.05, 0.95, 19):
        m11 = w * (a * a)[:, None] + (1 - w) * (a * a)[None, :]
        m12 = w * (a * c)[:, None] + (1 - w) * (a * c)[None, :]
        m22 = w * (c * c)[:, None] + (1 - w) * (c * c)[None, :]
        det = m11 * m22 - m12 * m12
        with np.errstate(divide="ignore", invalid="ignore"):
            v = np.where(det > 1e-12 * m11 * m22, m22 / det, np.inf)
        i, j = np.unravel_index(np.argmin(v), v.shape)
        if v[i, j] < best[0]:
            best = (v[i, j], xg[i], xg[j], w)
    res = minimize(lambda q: var([q[0], q[1]], min(max(q[2], 1e-6), 1 - 1e-6)),
                   [best[1], best[2] * 1.001 + 1e-9, best[3]], method="Nelder-Mead",
                   options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 20000})
    v = min(best[0], res.fun)
    return known, np.sqrt(v / N)


out = []
for form, t, b, g, l in CASES:
    known, free = bounds(form, t, b, g, l)
    out.append({"form": form, "threshold": t, "beta": b, "gamma": g, "lambda": l, "n": N,
                "sd_known_slope": known, "sd_free_slope": free})
print(json.dumps(out, indent=2))
