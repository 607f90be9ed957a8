#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Recomputes affbench's LKP stats from raw.csv files, independently of the
Ruby parse script: Python's csv module, statistics.median, and the key rule of
contrib/lkp/README.md written again. Prints "key value" lines. Only for the
project's own, well-formed raw.csv files (it checks no grammar)."""
import csv
import statistics
import sys

groups = {}
for path in sys.argv[1:]:
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            pairs = sorted(p.split("=", 1) for p in row["config"].split(";") if p)
            key = ".".join([row["bench"]] + ["%s=%s" % (k, v.replace(",", "~")) for k, v in pairs]
                           + [row["metric"]])
            groups.setdefault(key, []).append(float(row["value"]))
for key in sorted(groups):
    print(key, repr(statistics.median(groups[key])))
