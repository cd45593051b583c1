#!/usr/bin/env python3
"""Medians of run-shapes.sh's runs (runs-shapes.jsonl, or the file named): per query and graph
shape, spate's steady events/s, its events per CPU second over the same window and its p99
latency, and each shape's ratio to the single-source graph (the median of the per-repetition
ratios). Prints a Markdown table."""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("runs-shapes.jsonl")
SHAPES = [("single", "one"), ("parallel", "one"), ("parallel", "per-replica")]
runs = defaultdict(lambda: defaultdict(list))  # query -> shape -> [metrics], in run order
for line in path.read_text().splitlines():
    if line.strip():
        r = json.loads(line)
        p = r["params"]
        runs[p["query"]][(p["topology"], p.get("sinks", "one"))].append(r["metrics"])


def med(ms, key):
    return statistics.median(m[key] for m in ms)


print("| query | single: steady events/s | parallel, one sink | parallel, sink per replica |"
      " per CPU second: single / one sink / per replica | p99 µs: single / one sink / per replica |")
print("|---|---|---|---|---|---|")
for q in sorted(runs, key=lambda q: int(q[1:])):
    by = runs[q]
    base = by[SHAPES[0]]
    cells = [f"{med(base, 'steady_events_per_s') / 1e6:.1f} M"]
    for shape in SHAPES[1:]:
        ratios = [a["steady_events_per_s"] / b["steady_events_per_s"] for a, b in zip(by[shape], base)]
        cells.append(f"{med(by[shape], 'steady_events_per_s') / 1e6:.1f} M"
                     f" ({statistics.median(ratios):.1f}×, {min(ratios):.1f}–{max(ratios):.1f})")
    per_core = " / ".join(f"{med(by[s], 'steady_events_per_core_s') / 1e6:.1f} M" for s in SHAPES)
    p99 = " / ".join(f"{med(by[s], 'lat_p99_us'):.2f}" for s in SHAPES)
    print(f"| {q} | {' | '.join(cells)} | {per_core} | {p99} |")
