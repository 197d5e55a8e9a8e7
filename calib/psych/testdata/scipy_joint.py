#!/usr/bin/python3
"""Reference maximum-likelihood joint fits of several conditions with SciPy.

Run with Debian's interpreter (python3-scipy), from this directory:

    /usr/bin/python3 scipy_joint.py --generate   # rewrite joint/*.csv (seeded)
    /usr/bin/python3 scipy_joint.py              # rewrite scipy_joint.json

Model per condition c: psi(x) = gamma + (1 - gamma - lambda_c) * F(x; alpha_c, beta_c),
F as in scipy_fit.py. Each of alpha, beta, lambda is "separate" (one value per
condition) or "shared" (one value for all); gamma is fixed (2AFC: 0.5).
threshold = F^-1(0.5). The likelihood-ratio statistic of a lesser model
nested in a fuller one is 2 (LL_fuller - LL_lesser), its p-value the
chi-square survival with the difference of the parameter counts as degrees
of freedom; AIC = 2 k - 2 LL. This script shares no code with the Go
package; it is the independent reference for joint_test.go. Search bounds
equal the Go defaults (FitJoint: alpha and beta from all conditions'
stimuli together) with lambda in [0, lambda_max].
"""
import csv
import json
import os
import sys

import numpy as np
from scipy import optimize, special, stats

# Each data set: conditions of a 2AFC experiment (levels relative to each
# condition's threshold, trials per level), the truth, and the model pairs
# (lesser, fuller) compared on it.
LEVELS = [0.5, 0.75, 1, 1.5, 2, 3, 4]
DATASETS = {
    # Four conditions, lapses equal: the shared-lapse model is true.
    "lapse_shared": dict(form="weibull", thresholds=[1.0, 1.2, 1.4, 1.6], betas=[3, 3, 2.5, 3.5],
                         lambdas=[0.03] * 4, n=40, lambda_max=0.15),
    # Two conditions with a tenth of lapses: separate lapses are true.
    "lapse_separate": dict(form="weibull", thresholds=[1.0, 1.2, 1.4, 1.6], betas=[3, 3, 2.5, 3.5],
                           lambdas=[0.0, 0.0, 0.1, 0.1], n=40, lambda_max=0.15),
    # Three logistic conditions with a common slope (slope shared vs separate).
    "slope_logistic": dict(form="logistic", thresholds=[2.0, 3.0, 4.0], betas=[2.0, 2.0, 2.0],
                           lambdas=[0.02] * 3, n=30, lambda_max=0.06),
}
MODELS = [
    ("shared_lapse", dict(alpha="separate", beta="separate", lam="shared")),
    ("separate_lapse", dict(alpha="separate", beta="separate", lam="separate")),
    ("shared_slope", dict(alpha="separate", beta="shared", lam="shared")),
]
PAIRS = [("shared_lapse", "separate_lapse"), ("shared_slope", "shared_lapse")]


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


def path(name):
    return os.path.join("joint", name + ".csv")


def generate():
    rng = np.random.default_rng(20261126)
    os.makedirs("joint", exist_ok=True)
    for name, d in DATASETS.items():
        with open(path(name), "w", newline="") as f:
            f.write("# simulated by scipy_joint.py --generate (numpy seed 20261126); truth: %s 2AFC, "
                    "thresholds %s, betas %s, lambdas %s\n" % (d["form"], d["thresholds"], d["betas"], d["lambdas"]))
            w = csv.writer(f)
            w.writerow(["condition", "x", "k", "n"])
            for c, (t, b, l) in enumerate(zip(d["thresholds"], d["betas"], d["lambdas"])):
                x = np.asarray(LEVELS) * t
                p = 0.5 + (0.5 - l) * cdf(d["form"], x, alpha_for(d["form"], t, b), b)
                k = rng.binomial(d["n"], p)
                for xi, ki in zip(x, k):
                    w.writerow(["c%d" % c, repr(float(xi)), int(ki), d["n"]])


def read(name):
    conds = {}
    with open(path(name)) as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    for r in rows[1:]:
        conds.setdefault(r[0], []).append((float(r[1]), int(r[2]), int(r[3])))
    return [(c, np.array(v, dtype=float)) for c, v in conds.items()]


def fit(name, d, model):
    conds = read(name)
    form = d["form"]
    allx = np.concatenate([v[:, 0] for _, v in conds])
    lo, hi = allx.min(), allx.max()
    r = hi - lo
    if form == "weibull":
        abound, bbound = (allx[allx > 0].min() / 10, hi * 10), (0.1, 100.0)
    else:
        abound, bbound = (lo - 2 * r, hi + 2 * r), (0.1 / r, 1000 / r)
    lbound = (0.0, d["lambda_max"])
    C = len(conds)
    # Parameter layout: for each of alpha, beta, lambda either C values or 1.
    layout, bounds = [], []
    for p, b in (("alpha", abound), ("beta", bbound), ("lam", lbound)):
        k = C if model[p] == "separate" else 1
        layout.append((p, len(bounds), k))
        bounds += [b] * k

    def unpack(th):
        out = {}
        for p, i, k in layout:
            out[p] = [th[i + (c if k > 1 else 0)] for c in range(C)]
        return out

    def nll(th):
        u = unpack(th)
        s = 0.0
        for c, (_, v) in enumerate(conds):
            x, k, n = v[:, 0], v[:, 1], v[:, 2]
            F = cdf(form, x, u["alpha"][c], u["beta"][c])
            lam = u["lam"][c]
            p = np.maximum(0.5 + (0.5 - lam) * F, 1e-300)
            q = np.maximum(lam + (0.5 - lam) * (1 - F), 1e-300)
            s -= np.sum(k * np.log(p) + (n - k) * np.log(q))
        return s

    def grid(v, lam0):
        # the best (alpha, beta) of a 15 x 10 grid for one condition
        x, k, n = v[:, 0], v[:, 1], v[:, 2]
        xl, xh = x.min(), x.max()
        if form == "weibull":
            alphas, betas = np.geomspace(xl, xh, 15), np.geomspace(0.5, 20, 10)
        else:
            alphas, betas = np.linspace(xl, xh, 15), np.geomspace(2 / (xh - xl), 100 / (xh - xl), 10)
        best = None
        for a0 in alphas:
            for b0 in betas:
                F = cdf(form, x, a0, b0)
                p = np.maximum(0.5 + (0.5 - lam0) * F, 1e-300)
                q = np.maximum(lam0 + (0.5 - lam0) * (1 - F), 1e-300)
                ll = np.sum(k * np.log(p) + (n - k) * np.log(q))
                if best is None or ll > best[0]:
                    best = (ll, a0, b0)
        return best[1], best[2]

    # Starts: each condition's grid optimum at a lapse of 2, 25, 50, 75 and
    # 95 % of its bound (shared values at the conditions' geometric mean),
    # then L-BFGS-B; the best is polished by Nelder-Mead.
    best = None
    for lam0 in np.array([0.02, 0.25, 0.5, 0.75, 0.95]) * d["lambda_max"]:
        g = [grid(v, lam0) for _, v in conds]
        start = {"alpha": [a for a, _ in g], "beta": [b for _, b in g], "lam": [lam0] * C}
        th0 = []
        for p, i, k in layout:
            v = start[p]
            if k == 1:
                if p == "beta" or form == "weibull":
                    v = [float(np.exp(np.mean(np.log(v))))]
                else:
                    v = [float(np.mean(v))]
            th0 += v[:k]
        res = optimize.minimize(nll, th0, method="L-BFGS-B", bounds=bounds,
                                options=dict(ftol=1e-15, gtol=1e-11, maxiter=20000, maxfun=200000))
        if best is None or res.fun < best.fun:
            best = res
    res = optimize.minimize(nll, best.x, method="Nelder-Mead", bounds=bounds,
                            options=dict(xatol=1e-12, fatol=1e-13, maxiter=400000, maxfev=400000, adaptive=True))
    if res.fun > best.fun:
        res = best
    u = unpack(res.x)
    out = []
    for c, (cname, _) in enumerate(conds):
        a, b, l = u["alpha"][c], u["beta"][c], u["lam"][c]
        out.append(dict(name=cname, alpha=float(a), beta=float(b), **{"lambda": float(l)},
                        threshold=float(quantile(form, 0.5, a, b))))
    k = len(res.x)
    return dict(params=k, loglik=float(-res.fun), aic=float(2 * k + 2 * res.fun), conditions=out)


def main():
    if "--generate" in sys.argv:
        generate()
    out = []
    for name, d in DATASETS.items():
        fits = {m: fit(name, d, spec) for m, spec in MODELS}
        comps = []
        for lesser, fuller in PAIRS:
            lr = max(2 * (fits[fuller]["loglik"] - fits[lesser]["loglik"]), 0.0)
            df = fits[fuller]["params"] - fits[lesser]["params"]
            comps.append(dict(lesser=lesser, fuller=fuller, lr=lr, df=df, p=float(stats.chi2.sf(lr, df))))
        out.append(dict(name=name, form=d["form"], lambda_max=d["lambda_max"], fits=fits, comparisons=comps))
    with open("scipy_joint.json", "w") as f:
        json.dump(dict(generator="scipy_joint.py", scipy=__import__("scipy").__version__,
                       numpy=np.__version__, models={m: s for m, s in MODELS}, datasets=out), f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
