#!/usr/bin/python3
"""Reference maximum-likelihood fits of psychometric functions with SciPy.

Run with Debian's interpreter (python3-scipy), from this directory:

    /usr/bin/python3 scipy_fit.py --generate   # rewrite fits/*.csv (seeded)
    /usr/bin/python3 scipy_fit.py              # rewrite scipy_fits.json

Model: psi(x) = gamma + (1 - gamma - lambda) * F(x; alpha, beta) with
  logistic  F = 1 / (1 + exp(-beta (x - alpha)))
  cumnormal F = Phi(beta (x - alpha))
  weibull   F = 1 - exp(-(x / alpha)^beta), x > 0
threshold = F^-1(0.5), slope = dpsi/dx at the threshold. This script shares
no code with the Go package; it is the independent reference for
fit_test.go. Search bounds equal the Go defaults (FitPF).
"""
import csv
import glob
import json
import os
import sys

import numpy as np
from scipy import optimize, special

# name: (form, levels, trials per level, true (alpha-free) parameters, fit options)
DATASETS = {
    # The HAPTEX curvature experiment's design (8 curvatures, ~100 trials,
    # yes/no "curved or plane?"), simulated with threshold 2.35 1/m.
    "curvature_yesno": dict(form="logistic", x=[0, 1.82, 2.22, 2.86, 3.33, 4, 5, 6.67], n=13,
                            threshold=2.35, beta=3.0, gamma=0.05, lam=0.01,
                            fit=dict(gamma=0.05, free_gamma=True, lam=0.01)),
    "weibull_2afc": dict(form="weibull", x=list(np.geomspace(2, 30, 7)), n=40,
                         threshold=10.0, beta=3.5, gamma=0.5, lam=0.0,
                         fit=dict(gamma=0.5, lam=0.0)),
    "weibull_2afc_lapse": dict(form="weibull", x=list(np.geomspace(2, 30, 7)), n=60,
                               threshold=8.0, beta=2.5, gamma=0.5, lam=0.03,
                               fit=dict(gamma=0.5, lam=0.02, free_lambda=True)),
    "cumnormal_yesno": dict(form="cumnormal", x=list(np.linspace(-3, 3, 9)), n=30,
                            threshold=0.4, beta=0.9, gamma=0.08, lam=0.04,
                            fit=dict(gamma=0.05, free_gamma=True, lam=0.02, free_lambda=True)),
    "logistic_2afc": dict(form="logistic", x=list(np.linspace(1, 9, 9)), n=25,
                          threshold=5.0, beta=1.2, gamma=0.5, lam=0.01,
                          fit=dict(gamma=0.5, lam=0.01)),
}


def cdf(form, x, a, b):
    x = np.asarray(x, dtype=float)
    if form == "logistic":
        return special.expit(b * (x - a))
    if form == "cumnormal":
        return special.ndtr(b * (x - a))
    out = np.zeros_like(x)
    pos = x > 0
    out[pos] = -np.expm1(-np.power(x[pos] / a, b))
    return out


def pdf(form, x, a, b):
    if form == "logistic":
        f = special.expit(b * (x - a))
        return b * f * (1 - f)
    if form == "cumnormal":
        z = b * (x - a)
        return b * np.exp(-z * z / 2) / np.sqrt(2 * np.pi)
    w = (x / a) ** b
    return b / x * w * np.exp(-w)


def quantile(form, c, a, b):
    if form == "logistic":
        return a + np.log(c / (1 - c)) / b
    if form == "cumnormal":
        return a + special.ndtri(c) / b
    return a * (-np.log1p(-c)) ** (1 / b)


def alpha_for(form, t, b, c=0.5):
    if form == "logistic":
        return t - np.log(c / (1 - c)) / b
    if form == "cumnormal":
        return t - special.ndtri(c) / b
    return t / (-np.log1p(-c)) ** (1 / b)


def generate():
    rng = np.random.default_rng(20260527)
    os.makedirs("fits", exist_ok=True)
    for name, d in DATASETS.items():
        a = alpha_for(d["form"], d["threshold"], d["beta"])
        x = np.asarray(d["x"], dtype=float)
        p = d["gamma"] + (1 - d["gamma"] - d["lam"]) * cdf(d["form"], x, a, d["beta"])
        k = rng.binomial(d["n"], p)
        with open(os.path.join("fits", name + ".csv"), "w", newline="") as f:
            f.write("# simulated by scipy_fit.py --generate (numpy seed 20260527); "
                    "truth: %s threshold %g beta %g gamma %g lambda %g\n"
                    % (d["form"], d["threshold"], d["beta"], d["gamma"], d["lam"]))
            w = csv.writer(f)
            w.writerow(["x", "k", "n"])
            for xi, ki in zip(x, k):
                w.writerow([repr(float(xi)), int(ki), d["n"]])


def read(path):
    x, k, n = [], [], []
    with open(path) as f:
        rows = [r for r in csv.reader(line for line in f if not line.startswith("#"))]
    for r in rows[1:]:
        x.append(float(r[0]))
        k.append(int(r[1]))
        n.append(int(r[2]))
    return np.array(x), np.array(k, dtype=float), np.array(n, dtype=float)


def fit(name, d):
    x, k, n = read(os.path.join("fits", name + ".csv"))
    form, o = d["form"], d["fit"]
    lo, hi = x.min(), x.max()
    r = hi - lo
    if form == "weibull":
        lopos = x[x > 0].min()
        abound, bbound = (lopos / 10, hi * 10), (0.1, 100.0)
    else:
        abound, bbound = (lo - 2 * r, hi + 2 * r), (0.1 / r, 1000 / r)
    free_g, free_l = o.get("free_gamma", False), o.get("free_lambda", False)

    def unpack(th):
        i = 2
        g, l = o["gamma"], o["lam"]
        if free_g:
            g = th[i]
            i += 1
        if free_l:
            l = th[i]
        return th[0], th[1], g, l

    def nll(th):
        a, b, g, l = unpack(th)
        F = cdf(form, x, a, b)
        p = np.maximum(g + (1 - g - l) * F, 1e-300)
        q = np.maximum(l + (1 - g - l) * (1 - F), 1e-300)
        return -np.sum(k * np.log(p) + (n - k) * np.log(q))

    bounds = [abound, bbound]
    if free_g:
        bounds.append((0.0, 0.5))
    if free_l:
        bounds.append((0.0, 0.06))
    best = None
    # multi-start over a grid, then polish
    if form == "weibull":
        alphas = np.geomspace(x[x > 0].min(), hi, 12)
        betas = np.geomspace(0.5, 20, 8)
    else:
        alphas = np.linspace(lo, hi, 12)
        betas = np.geomspace(2 / r, 100 / r, 8)
    for a0 in alphas:
        for b0 in betas:
            th0 = [a0, b0] + ([0.05] if free_g else []) + ([0.02] if free_l else [])
            res = optimize.minimize(nll, th0, method="L-BFGS-B", bounds=bounds,
                                    options=dict(ftol=1e-15, gtol=1e-12, maxiter=5000))
            if best is None or res.fun < best.fun:
                best = res
    res = optimize.minimize(nll, best.x, method="Nelder-Mead", bounds=bounds,
                            options=dict(xatol=1e-12, fatol=1e-14, maxiter=200000, maxfev=200000))
    if res.fun > best.fun:
        res = best
    a, b, g, l = unpack(res.x)
    t = float(quantile(form, 0.5, a, b))
    slope = float((1 - g - l) * pdf(form, t, a, b))
    F = cdf(form, x, a, b)
    p = g + (1 - g - l) * F
    q = l + (1 - g - l) * (1 - F)
    with np.errstate(divide="ignore", invalid="ignore"):
        dev = 2 * np.sum(np.where(k > 0, k * np.log(k / (n * p)), 0)
                         + np.where(n > k, (n - k) * np.log((n - k) / (n * q)), 0))
    return dict(name=name, form=form, alpha=float(a), beta=float(b), gamma=float(g), **{"lambda": float(l)},
                threshold=t, slope=slope, loglik=float(-res.fun), deviance=float(dev),
                options=dict(gamma=o["gamma"], free_gamma=free_g, **{"lambda": o["lam"]}, free_lambda=free_l))


def main():
    if "--generate" in sys.argv:
        generate()
    out = [fit(name, d) for name, d in DATASETS.items()]
    with open("scipy_fits.json", "w") as f:
        json.dump(dict(generator="scipy_fit.py", scipy=__import__("scipy").__version__,
                       numpy=np.__version__, fits=out), f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
