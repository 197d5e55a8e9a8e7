#!/usr/bin/python3
"""Reference values for sim's fidelity tests (fidelity_test.go).

1. Bias extension: a strip cut at 45 degrees to the weft, pulled along its
   length with roller ends and free sides, deforms homogeneously; with
   deformation gradient F = [[1+e1, 0], [b, 1+e2]] in the strip's frame the
   lateral strain e2 and the skew b make the energy stationary, and the
   force per unit (undeformed) width is dpsi/de1. psi is Volino's element
   energy for the built-in cotton (PCHIP curves, no Poisson coupling):
       psi = Phi_u(|U|-1) + Phi_v(|V|-1) + Phi_s((|U+V|-|U-V|)/sqrt2).
2. Peirce's cantilever: the exact heavy elastica (inextensible strip of
   bending rigidity B and weight w per area, clamped horizontally) with
   overhang l = 2c, c = (B/w)^(1/3): the chord angle of the tip, which
   Peirce's formula c = l (cos(theta/2) / (8 tan theta))^(1/3) maps back to
   a bending length.

Run with Debian's python3 (python3-scipy):
    /usr/bin/python3 fidelity_ref.py > fidelity_ref.json
"""
import json
import sys

import numpy as np
import scipy
from scipy.integrate import solve_bvp
from scipy.interpolate import PchipInterpolator
from scipy.optimize import minimize

weft = ([0, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06], [0, 4, 12, 42, 95, 180, 300, 460])
warp = ([0, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05], [0, 7, 22, 75, 170, 320, 500])
shear = ([0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3], [0, 1.1, 2.9, 6.3, 10.5, 16, 30])


class Curve:
    """PCHIP inside the data, linear outside (as sim.Curve)."""

    def __init__(self, xy):
        x, y = np.array(xy[0], float), np.array(xy[1], float)
        self.p = PchipInterpolator(x, y)
        self.a = self.p.antiderivative()
        self.x0, self.x1 = x[0], x[-1]
        self.d0, self.d1 = self.p(x[0], 1), self.p(x[-1], 1)

    def energy(self, e):
        if e < self.x0:
            t = e - self.x0
            return self.a(self.x0) + t * (self.p(self.x0) + 0.5 * self.d0 * t) - self.a(0.0)
        if e > self.x1:
            t = e - self.x1
            return self.a(self.x1) + t * (self.p(self.x1) + 0.5 * self.d1 * t) - self.a(0.0)
        return self.a(e) - self.a(0.0)


cu, cv, cs = Curve(weft), Curve(warp), Curve(shear)
theta = np.pi / 4
au = np.array([np.cos(theta), np.sin(theta)])
av = np.array([-np.sin(theta), np.cos(theta)])


def psi(e1, e2, b):
    F = np.array([[1 + e1, 0.0], [b, 1 + e2]])
    U, V = F @ au, F @ av
    nu, nv = np.linalg.norm(U), np.linalg.norm(V)
    es = (np.linalg.norm(U + V) - np.linalg.norm(U - V)) / np.sqrt(2)
    return cu.energy(nu - 1) + cv.energy(nv - 1) + cs.energy(es)


bias = []
for e1 in np.arange(0.01, 0.1001, 0.01):
    res = minimize(lambda q: psi(e1, q[0], q[1]), [-e1, 0.0], method="Nelder-Mead",
                   options={"xatol": 1e-13, "fatol": 1e-18, "maxiter": 40000})
    e2, b = res.x
    h = 1e-7
    f = (psi(e1 + h, e2, b) - psi(e1 - h, e2, b)) / (2 * h)
    bias.append({"strain": e1, "force_per_width": f, "lateral": e2, "skew": b})

# Heavy elastica: s in [0, l] from the clamp, phi the angle below the
# horizontal: B phi'' = -w (l - s) cos(phi), phi(0) = 0, phi'(l) = 0.
B = 0.10 * 9.80665e-5
w = 0.130 * 9.81
c = (B / w) ** (1 / 3)
l = 2 * c


def rhs(s, y):
    return np.vstack([y[1], -w * (l - s) * np.cos(y[0]) / B])


def bc(ya, yb):
    return np.array([ya[0], yb[1]])


s = np.linspace(0, l, 401)
sol = solve_bvp(rhs, bc, s, np.zeros((2, s.size)), tol=1e-10, max_nodes=100000)
ss = np.linspace(0, l, 20001)
phi = sol.sol(ss)[0]
x = np.trapz(np.cos(phi), ss)
z = np.trapz(np.sin(phi), ss)
chord = np.arctan2(z, x)
peirce = l * (np.cos(chord / 2) / (8 * np.tan(chord))) ** (1 / 3)

json.dump({
    "scipy": scipy.__version__,
    "bias": bias,
    "cantilever": {"bending_rigidity": B, "weight_per_area": w, "bending_length": c, "overhang": l,
                   "tip_x": x, "tip_drop": z, "chord_angle_deg": np.degrees(chord),
                   "peirce_bending_length": peirce},
}, sys.stdout, indent=1)
