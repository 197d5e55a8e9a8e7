#!/usr/bin/python3
"""The bending force on a quartic surface on graded grid lines, in 1-D
(docs/cloth.md, "Graded meshes").

sim's weft bending on a line of nodes u_0 < ... < u_{n-1} (mesh.bendStencils)
is E = sum_i 1/2 B c_i kappa_i^2: kappa_i the three-point second difference
at interior line i, c_i its dual cell. The force at node k over c_k is
compared with the plate's B z'''' for z = (u - u0)^4, at the nodes three
lines or more from the ends. The 2-D test's surface (TestBendingForceQuartic)
adds (u-u0)^2 (v-v0)^2, whose force is exact on any grid, so its ratio is
(BU*24*r + 8*BT) / (BU*24 + 8*BT); that is what is printed, for quartics
centred at u0 = 0.20, 0.15 and 0 of a 0.3 m side graded round 0.20 m.

Gradings: the Gaussian density sim used before (1 + 3 exp(-(d/2 cm)^2)),
smooth steps of h^2 with the Gaussian's node count, finest and coarsest
spacing, and the hyperbolic-sine lines sim uses now (a = RefineRadius /
sqrt(RefineRatio^2 - 1)), with the predicted factor 1 + 5b/6 + b^2/6.

Standard library only:
    python3 grading1d.py > grading1d.txt
"""
import math

BU, BT = 1.1e-5, 0.6e-5
L, C = 0.3, 0.20


def force_ratio(u, u0):
    n = len(u)
    z = [(x - u0) ** 4 for x in u]
    c = [(u[min(i + 1, n - 1)] - u[max(i - 1, 0)]) / 2 for i in range(n)]
    f = [0.0] * n
    for i in range(1, n - 1):
        h1, h2 = u[i] - u[i - 1], u[i + 1] - u[i]
        w = [2 / (h1 * (h1 + h2)), -2 / (h1 * h2), 2 / (h2 * (h1 + h2))]
        k = w[0] * z[i - 1] + w[1] * z[i] + w[2] * z[i + 1]
        for a in range(3):
            f[i - 1 + a] += c[i] * k * w[a]
    out = [to2d(f[k] / (c[k] * 24)) for k in range(3, n - 3)]
    return min(out), max(out)


def to2d(r):
    return (BU * 24 * r + 8 * BT) / (BU * 24 + 8 * BT)


def bisect(fn, lo, hi, it=200):
    flo = fn(lo)
    for _ in range(it):
        mid = (lo + hi) / 2
        fm = fn(mid)
        if (fm < 0) == (flo < 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return (lo + hi) / 2


def lines_from_cum(n, cum):
    total = cum(L)
    g = [0.0]
    for i in range(1, n - 1):
        want = total * i / (n - 1)
        g.append(bisect(lambda s: cum(s) - want, 0, L, 100))
    return g + [L]


def lines_from_density(n, rho, m=20000):
    xs = [L * j / m for j in range(m + 1)]
    F = [0.0]
    for j in range(m):
        a, b = xs[j], xs[j + 1]
        F.append(F[-1] + (b - a) / 6 * (rho(a) + 4 * rho((a + b) / 2) + rho(b)))
    g, j = [0.0], 0
    for i in range(1, n - 1):
        want = F[-1] * i / (n - 1)
        while F[j + 1] < want:
            j += 1
        t = (want - F[j]) / (F[j + 1] - F[j])
        g.append(xs[j] + t * (xs[j + 1] - xs[j]))
    return g + [L]


def gauss(n, w=0.02, R=4):
    a = (R - 1) * w * math.sqrt(math.pi) / 2
    return lines_from_cum(n, lambda s: s + a * (math.erf((s - C) / w) + math.erf(C / w)))


STEPS = {
    "tanh^2": lambda y: math.tanh(y) ** 2,
    "gaussian": lambda y: 1 - math.exp(-y * y),
    "lorentzian": lambda y: y * y / (1 + y * y),
}


def step(n, H, R, p):
    """h^2 = H^2 (1/R^2 + (1 - 1/R^2) p((u - C)/l)), l set by the node count."""
    def h(x, l):
        return H * math.sqrt(1 / R ** 2 + (1 - 1 / R ** 2) * p((x - C) / l))

    def count(l, m=4000):
        s = 0.0
        for j in range(m):
            a, b = L * j / m, L * (j + 1) / m
            s += (b - a) / 6 * (1 / h(a, l) + 4 / h((a + b) / 2, l) + 1 / h(b, l))
        return s

    l = bisect(lambda l: count(l) - (n - 1), 1e-4, 1.0, 60)
    return lines_from_density(n, lambda x: 1 / h(x, l))


def sinh_lines(n, a):
    lo, hi = math.asinh(-C / a), math.asinh((L - C) / a)
    u = [C + a * math.sinh(lo + (hi - lo) * i / (n - 1)) for i in range(n)]
    u[0], u[-1] = 0.0, L
    return u, (hi - lo) / (n - 1)


def spacings(u):
    h = [u[i + 1] - u[i] for i in range(len(u) - 1)]
    nb = max(max(h[i + 1] / h[i], h[i] / h[i + 1]) for i in range(len(h) - 1))
    under = max(h[i] for i in range(len(h)) if u[i + 1] > C - 0.008 and u[i] < C + 0.008)
    return min(h), under, max(h), nb


def report(name, u):
    fine, under, coarse, nb = spacings(u)
    s = "%-34s finest %5.2f, under the pad %5.2f, largest %5.1f mm, neighbours %.3f |" % (
        name, 1e3 * fine, 1e3 * under, 1e3 * coarse, nb)
    for u0 in (0.20, 0.15, 0.0):
        lo, hi = force_ratio(u, u0)
        s += "  u0 %.2f: %.4f to %.4f" % (u0, lo, hi)
    print(s)


for n in (24, 32, 64):
    g = gauss(n)
    report("%d² Gaussian (before)" % n, g)
    fine, _, coarse, _ = spacings(g)
    for name, p in STEPS.items():
        report("%d² h² step, %s" % (n, name), step(n, coarse, coarse / fine, p))
    for radius in (0.025, 0.03, 0.035, 0.04, 0.05):
        u, th = sinh_lines(n, radius / math.sqrt(3))
        b = 2 * math.cosh(th) - 2
        report("%d² sinh, Radius %.3f, factor %.4f" % (n, radius, to2d(1 + 5 * b / 6 + b * b / 6)), u)
