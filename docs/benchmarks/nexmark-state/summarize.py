#!/usr/bin/env python3
"""Medians of runs.jsonl (run.sh; or the file named, e.g. docs/benchmarks/nexmark-latency's,
whose paced runs get a latency table instead): per query, spate's and Flink's steady and whole-run
events/s, the median and range of the per-repetition ratios (the n-th spate run of a query
with the n-th Flink run), CPU, peak RSS, latency, rows and digests. Prints a Markdown table."""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("runs.jsonl")
runs = defaultdict(lambda: defaultdict(list))  # query -> impl -> [metrics]
for line in path.read_text().splitlines():
    if line.strip():
        r = json.loads(line)
        r["metrics"]["_rate"] = r["params"].get("rate", 0)
        r["metrics"]["_events"] = float(r["params"]["events"])
        runs[r["params"]["query"]][r["impl"]].append(r["metrics"])


def med(ms, key):
    vals = [m[key] for m in ms if m.get(key) is not None]
    return statistics.median(vals) if vals else None


def mega(v):
    return "—" if v is None else f"{v / 1e6:.2f} M"


def ratio(query, key):
    s, f = runs[query]["spate"], runs[query]["flink"]
    rs = [a[key] / b[key] for a, b in zip(s, f) if a.get(key) and b.get(key)]
    if not rs:
        return "—"
    return f"**{statistics.median(rs):.1f}×** ({min(rs):.1f}–{max(rs):.1f})"


def lat(ms):
    p50, p99 = med(ms, "lat_p50_us"), med(ms, "lat_p99_us")
    if p50 is None:
        return "—"
    if p99 < 1e5:
        return f"{p50 / 1e3:.2f} ms / {p99 / 1e3:.2f} ms"
    return f"{p50 / 1e6:.2f} s / {p99 / 1e6:.2f} s"


def at_rate(ms):
    return any(float(m.get("_rate", 0)) > 0 for m in ms)


def us(v):
    if v is None:
        return "—"
    if v >= 1000:
        return f"{v / 1e3:.2f} ms"
    return f"{v:.1f} µs" if v < 10 else f"{v:.0f} µs"


def seconds(ms, key):
    v = med(ms, key)
    return "—" if v is None else f"{v:.1f} s"


if any(at_rate(runs[q][i]) for q in runs for i in runs[q]):
    # Paced runs (docs/benchmarks/nexmark-latency): latency at the rate, and the CPU it took.
    # Whether each side kept the rate: the time its run took (spate: the graph's run; Flink:
    # the job's, its start included) against the events / rate it should take.
    print("| query | runs | rate | run time spate / Flink (events / rate) |"
          " latency p50 spate / Flink | p99 spate / Flink |"
          " max spate / Flink | CPU spate / Flink | rows | digests agree |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for q in sorted(runs, key=lambda q: int(q[1:])):
        s, f = runs[q]["spate"], runs[q]["flink"]
        digests = {m["digest"] for m in s + f}
        rates = {float(m["_rate"]) for m in s + f}
        assert len(rates) == 1, f"{q}: runs at different rates {rates}"
        rate = rates.pop()
        print(f"| {q} | {len(s)} + {len(f)} | {rate:,.0f}/s |"
              f" {seconds(s, 'wall_s')} / {seconds(f, 'job_s')} ({s[0]['_events'] / rate:.1f} s) |"
              f" {us(med(s, 'lat_p50_us'))} / {us(med(f, 'lat_p50_us'))} |"
              f" {us(med(s, 'lat_p99_us'))} / {us(med(f, 'lat_p99_us'))} |"
              f" {us(med(s, 'lat_max_us'))} / {us(med(f, 'lat_max_us'))} |"
              f" {med(s, 'cpu_pct'):.0f}% / {med(f, 'cpu_pct'):.0f}% | {s[0]['rows']:,} |"
              f" {'yes' if len(digests) == 1 else 'NO'} |")
    sys.exit(0)

print("| query | runs | spate steady events/s | Flink steady events/s | spate / Flink steady |"
      " whole run | per CPU second (steady) | CPU spate / Flink | peak RSS spate / Flink | latency p50 / p99 spate;"
      " Flink | rows | digests agree |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for q in sorted(runs, key=lambda q: int(q[1:])):
    s, f = runs[q]["spate"], runs[q]["flink"]
    digests = {m["digest"] for m in s + f}
    print(f"| {q} | {len(s)} + {len(f)} | {mega(med(s, 'steady_events_per_s'))} |"
          f" {mega(med(f, 'steady_events_per_s'))} | {ratio(q, 'steady_events_per_s')} |"
          f" {ratio(q, 'events_per_s')} | {ratio(q, 'steady_events_per_core_s')} |"
          f" {med(s, 'cpu_pct'):.0f}% / {med(f, 'cpu_pct'):.0f}% |"
          f" {med(s, 'peak_rss_mb') / 1024:.1f} / {med(f, 'peak_rss_mb') / 1024:.1f} GB |"
          f" {lat(s)}; {lat(f)} | {s[0]['rows']:,} | {'yes' if len(digests) == 1 else 'NO'} |")
