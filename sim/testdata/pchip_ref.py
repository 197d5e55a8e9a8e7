#!/usr/bin/python3
"""Reference values for sim's strain-stress curves (curve_test.go).

Evaluates SciPy's PchipInterpolator (value, derivative, and the integral
from 0, i.e. the energy density) for a set of curves inside their data
range. Run with Debian's python3 (python3-scipy):

    /usr/bin/python3 pchip_ref.py > pchip_ref.json
"""
import json

import numpy as np
import scipy
from scipy.interpolate import PchipInterpolator

curves = {
    # sim.DefaultMaterial() weft, warp, shear
    "weft": ([0, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06], [0, 4, 12, 42, 95, 180, 300, 460]),
    "warp": ([0, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05], [0, 7, 22, 75, 170, 320, 500]),
    "shear": ([0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3], [0, 1.1, 2.9, 6.3, 10.5, 16, 30]),
    # uneven spacing, flat stretch, compression side
    "uneven": ([-0.02, -0.005, 0, 0.001, 0.004, 0.02, 0.021, 0.08], [-30, -2, 0, 0.5, 0.5, 40, 41, 400]),
    # two points
    "line": ([-0.1, 0.2], [-5, 10]),
}

out = {"scipy": scipy.__version__, "curves": []}
for name, (x, y) in curves.items():
    p = PchipInterpolator(x, y)
    d = p.derivative()
    a = p.antiderivative()
    e = np.linspace(x[0], x[-1], 41)
    out["curves"].append({
        "name": name, "strain": x, "stress": y,
        "at": e.tolist(),
        "value": p(e).tolist(),
        "slope": d(e).tolist(),
        "energy": (a(e) - a(0.0)).tolist(),
    })
json.dump(out, __import__("sys").stdout, indent=1)
