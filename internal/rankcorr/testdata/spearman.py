#!/usr/bin/env python3
"""Reference rank correlations for rankcorr.Spearman: scipy.stats.spearmanr
(ties at the mean of the ranks they span). Run: python3 spearman.py > spearman.json (in internal/rankcorr/testdata)"""
import json
from scipy.stats import spearmanr

cases = [
    # no ties
    ([1, 2, 3, 4, 5], [1, 3, 2, 5, 4]),
    # ties in the KES values only (two denims of MIU 0.22, three fabrics of 0.225)
    ([0.155, 0.185, 0.195, 0.205, 0.22, 0.22, 0.225, 0.225, 0.225, 0.305],
     [0.1613, 0.1887, 0.1988, 0.2089, 0.2238, 0.2232, 0.2291, 0.2124, 0.2294, 0.3014]),
    # ties in both
    ([1, 1, 2, 2, 3], [2, 2, 1, 3, 3]),
    # reversed
    ([3, 2, 1], [1, 2, 3]),
]
out = [{"kes": k, "cue": c, "spearman": float(spearmanr(k, c).statistic)} for k, c in cases]
print(json.dumps(out, indent=1))
