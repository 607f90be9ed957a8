#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gp_panels.py logs GP...: name each figure script with a panel that
misleads (logs), one line per fault; exit 0 when there
is none, 1 when there is, 2 on a bad mode.

- logs, a log axis that does not say so: at each "plot", an x or y axis set to
  logscale must have a label that says "log scale" (beside a linear panel a
  log one reads as the same scale unless it says which)."""
import re
import sys


def log_labels(path, lines):
    """The plots of path whose log axis does not say so."""
    bad = []
    label = {"x": "", "y": ""}
    log = {"x": False, "y": False}
    for n, line in enumerate(lines, 1):
        if line.startswith("reset"):
            label = {"x": "", "y": ""}
            log = {"x": False, "y": False}
        m = re.match(r"set ([xy])label (.*)", line)
        if m:
            label[m.group(1)] = m.group(2)
        m = re.match(r"(un)?set logscale ?([a-z0-9]*)", line)
        if m:
            axes = re.sub(r"[^xy]", "", m.group(2).split(" ")[0]) or "xy"
            for a in axes:
                log[a] = m.group(1) is None
        if line.startswith("plot "):
            for a in "xy":
                if log[a] and "log scale" not in label[a]:
                    bad.append("%s:%d: a log %s axis labelled %s" % (path, n, a,
                                                                     label[a] or "nothing"))
    return bad


def main():
    bad = []
    find = {"logs": log_labels}.get(sys.argv[1] if len(sys.argv) > 1 else "")
    if not find:
        print("usage: gp_panels.py logs GP...")
        return 2
    for path in sys.argv[2:]:
        with open(path) as f:
            lines = f.read().splitlines()
        bad += find(path, lines)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
