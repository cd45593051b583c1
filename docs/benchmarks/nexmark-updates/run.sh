#!/usr/bin/env bash
# Nexmark's updating queries (q4, q6, q9, q15–q19) and q12 on spate and on Flink, interleaved, by
# docs/benchmarks/nexmark-state/run.sh: the same 5,000,000 events of build/nexmark/events.csv,
# parallelism 2, REPS repetitions (default 3); each repetition runs every query, spate then
# Flink, both from one source (each group must see its bids in the file's order). Appends one
# JSON line per run to runs.jsonl beside this script; docs/benchmarks/nexmark-state/summarize.py
# FILE prints the medians. From the repository's root, after
#   cmake --build --preset release --target spate-bench nexmark
#   build/release/examples/nexmark generate --events 5000000 --out build/nexmark/events.csv
set -euo pipefail
OUT="$(dirname "$0")/runs.jsonl" REPS=${REPS:-3} QUERIES=${QUERIES:-q4 q6 q9 q12 q15 q16 q17 q18 q19} \
  exec "$(dirname "$0")/../nexmark-state/run.sh"
