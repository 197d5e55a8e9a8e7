#!/usr/bin/python3
"""Reference for the virtual cantilever (calib/kes, TestVirtualCantilever).

Peirce's cantilever: a heavy inextensible strip clamped horizontally, with
an overhang l = 2c, c = (B/w)^(1/3) its bending length (w the weight per
area). Its exact shape is the heavy elastica

    B θ''(s) = -w (l - s) cos θ(s),   θ(0) = 0 (clamp),  θ'(l) = 0 (free tip),

θ the downward slope at arc length s. In units of c: θ'' = -(L - s) cos θ
with L = l/c = 2. The chord from the clamp to the tip makes the angle
atan(drop/reach) with the horizontal; Peirce's formula reads it back as
c_P = l (cos(θ/2)/(8 tan θ))^(1/3). Also written: the root curvature
θ'(0)·c, the largest curvature on the strip, in units of 1/c.

Run with Debian's SciPy: /usr/bin/python3 elastica_ref.py > elastica_ref.json
"""
import json

import numpy as np
from scipy.integrate import solve_bvp, quad

L = 2.0


def rhs(s, y):
    return np.vstack([y[1], -(L - s) * np.cos(y[0])])


def bc(ya, yb):
    return np.array([ya[0], yb[1]])


s = np.linspace(0, L, 401)
sol = solve_bvp(rhs, bc, s, np.zeros((2, s.size)), tol=1e-10, max_nodes=100000)
assert sol.success, sol.message
reach = quad(lambda u: np.cos(sol.sol(u)[0]), 0, L, epsabs=1e-13, epsrel=1e-13)[0]
drop = quad(lambda u: np.sin(sol.sol(u)[0]), 0, L, epsabs=1e-13, epsrel=1e-13)[0]
chord = np.arctan2(drop, reach)
peirce = L * (np.cos(chord / 2) / (8 * np.tan(chord))) ** (1 / 3)
print(json.dumps({
    "overhang_over_c": L,
    "chord_angle_deg": float(np.degrees(chord)),
    "peirce_over_c": float(peirce),
    "root_curvature_times_c": float(sol.sol(0)[1]),
}, indent=2))
