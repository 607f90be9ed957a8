#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gp_panels.py logs|strips|spans|ticks GP...: name each figure script with a panel
that misleads (logs, spans) or is squeezed (strips), one line per fault; exit 0 when there
is none, 1 when there is, 2 on a bad mode.

- logs, a log axis that does not say so: at each "plot", an x or y axis set to
  logscale must have a label that says "log scale" (beside a linear panel a
  log one reads as the same scale unless it says which).
- strips: the script's first terminal (the PNG) is drawn again by gnuplot,
  into /dev/null, and after each "plot" gnuplot prints the width of the plot
  it drew (GPVAL_TERM_XMIN/XMAX). A panel whose plot is narrower than a third
  of its slot (the figure's width over the multiplot layout's columns) was
  squeezed by its key or labels to a strip.
- spans, a linear axis that flattens: a plot of bars or lines with error bars
  (a .dat of a label or x, then median, low, high per series) whose medians
  span more than 10x on a linear y axis.
- ticks, a CDF whose labelled x ticks all miss its data: none falls between the
  lowest 25th and the highest 75th percentile of its lines."""
import re
import subprocess
import sys

STRIP = 1 / 3


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


def strips(path, lines):
    """The panels of path's first terminal narrower than STRIP of their slot."""
    script, terms = [], 0
    for line in lines:
        if line.startswith("set terminal"):
            terms += 1
            if terms > 1:
                break
            m = re.search(r"size (\d+),", line)
            script.append(line)
            script.append('print "TERM %s"' % (m.group(1) if m else 0))
            continue
        if line.startswith("set output"):
            script.append("set output '/dev/null'")
            continue
        script.append(line)
        m = re.match(r"set multiplot layout \d+,(\d+)", line)
        if m:
            script.append('print "COLS %s"' % m.group(1))
        if line.startswith("unset multiplot"):
            script.append('print "COLS 1"')
        if line.startswith("plot "):
            script.append('print sprintf("PANEL %d", GPVAL_TERM_XMAX - GPVAL_TERM_XMIN)')
    d = path.rsplit("/", 1)[0] if "/" in path else "."
    run = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", cwd=d,
                         capture_output=True, text=True, timeout=120)
    if run.returncode:
        return ["%s: gnuplot failed: %s" % (path, run.stderr.strip()[-200:])]
    width, cols, bad, k = 0, 1, [], 0
    for out in run.stderr.splitlines() + run.stdout.splitlines():
        word = out.split()
        if len(word) != 2 or not word[1].isdigit():
            continue
        if word[0] == "TERM":
            width = int(word[1])
        elif word[0] == "COLS":
            cols = int(word[1])
        elif word[0] == "PANEL":
            k += 1
            slot = width / cols
            if width and int(word[1]) < slot * STRIP:
                bad.append("%s: panel %d's plot is %s px wide of its %d px slot" %
                           (path, k, word[1], slot))
    return bad


def medians(path):
    """The positive medians of a .dat of label, then (median, lo, hi) per series."""
    meds = []
    with open(path) as f:
        for row in f:
            cols = re.findall(r'"[^"]*"|\S+', row)[1:]
            if row.startswith("#") or len(cols) % 3:
                continue
            for v in cols[0::3]:
                try:
                    x = float(v)
                except ValueError:
                    continue
                if x > 0:
                    meds.append(x)
    return meds


def spans(path, lines):
    """The plots of path whose medians span over 10x on a linear y axis."""
    bad, log = [], False
    d = path.rsplit("/", 1)[0] if "/" in path else "."
    for n, line in enumerate(lines, 1):
        if line.startswith("reset") or line.startswith("unset logscale y"):
            log = False
        if line.startswith("set logscale y"):
            log = True
        if not line.startswith("plot ") or log:
            continue
        for dat in sorted(set(re.findall(r"'([A-Za-z0-9_.-]+\.dat)'", line))):
            meds = medians(d + "/" + dat)
            if meds and max(meds) > 10 * min(meds):
                bad.append("%s:%d: %s's medians span %g-%g on a linear axis" %
                           (path, n, dat, min(meds), max(meds)))
    return bad


def cdf_band(path):
    """[lowest 25th, highest 75th percentile] of a CDF .dat's lines ("x share" rows)."""
    lo, hi, q = float("inf"), 0, {}
    with open(path) as f:
        for row in f.read().split("\n\n\n"):
            q = {}
            for r in row.splitlines():
                x, share = (float(v) for v in r.split())
                for p in (0.25, 0.75):
                    if share >= p and p not in q:
                        q[p] = x
            if q:
                lo, hi = min(lo, q[0.25]), max(hi, q[0.75])
    return lo, hi


def ticks(path, lines):
    """A CDF of path whose labelled x ticks all fall outside its data's central band."""
    if not any(line.startswith("set ylabel 'share of samples") for line in lines):
        return []
    d = path.rsplit("/", 1)[0] if "/" in path else "."
    dat = re.search(r"'([A-Za-z0-9_.-]+\.dat)'", "\n".join(lines))
    lo, hi = cdf_band(d + "/" + dat.group(1))
    for line in lines:
        m = re.match(r"set xtics \((.*)\)", line)
        if m and not any(lo <= float(t) <= hi for t in m.group(1).split(",")):
            return ["%s: x ticks %s, none in the data's %g-%g" % (path, m.group(1), lo, hi)]
    return []


def main():
    bad = []
    modes = {"logs": log_labels, "strips": strips, "spans": spans, "ticks": ticks}
    find = modes.get(sys.argv[1] if len(sys.argv) > 1 else "")
    if not find:
        print("usage: gp_panels.py logs|strips|spans|ticks GP...")
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
