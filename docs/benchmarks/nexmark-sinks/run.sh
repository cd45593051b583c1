#!/usr/bin/env bash
# Nexmark's stateless queries (q0, q1, q2, q13, q14, q21, q22) on spate in the Flink job's shape —
# a source per core, each chained to the query and to a sink of its own (--topology=parallel
# --sinks=per-replica) — and on Flink, interleaved, by docs/benchmarks/nexmark-state/run.sh: the
# same 5,000,000 events of build/nexmark/events.csv, parallelism 2, REPS repetitions (default 5).
# Appends one JSON line per run to runs.jsonl beside this script;
# docs/benchmarks/nexmark-state/summarize.py FILE prints the medians. From the repository's
# root, after
#   cmake --build --preset release --target spate-bench nexmark
#   build/release/examples/nexmark generate --events 5000000 --out build/nexmark/events.csv
set -euo pipefail
OUT="$(dirname "$0")/runs.jsonl" REPS=${REPS:-5} QUERIES=${QUERIES:-q0 q1 q2 q13 q14 q21 q22} \
  TOPOLOGY=parallel SPATE_ARGS=--sinks=per-replica exec "$(dirname "$0")/../nexmark-state/run.sh"
