#!/usr/bin/env bash
# Nexmark latency at a rate both engines sustain: q0 (stateless), q3 and q20 (regular joins,
# rows made as the second event arrives) on spate and on Flink, interleaved, the first
# 2,000,000 events of build/nexmark/events.csv sent at 200,000 a second (10 s), parallelism 2,
# REPS repetitions (default 5). Flink runs with a 1 ms network-buffer flush timeout
# (nexmark.buffer_timeout_ms=1; its default, 100 ms, trades latency for throughput). Latency:
# from the source's stamp as it sends an event to the sink's receipt of its row, every 16th
# row. Appends one JSON line per run to runs.jsonl beside this script; summarize it with
#   docs/benchmarks/nexmark-state/summarize.py docs/benchmarks/nexmark-latency/runs.jsonl
# From the repository's root, after
#   cmake --build --preset release --target spate-bench nexmark
#   build/release/examples/nexmark generate --events 5000000 --out build/nexmark/events.csv
set -euo pipefail
out="$(dirname "$0")/runs.jsonl"
reps=${REPS:-5}
queries=${QUERIES:-q0 q3 q20}
for rep in $(seq "$reps"); do
  for q in $queries; do
    common=(--query="$q" --events=2000000 --replicas=2 --source=file --rate=200000
            --events_file=build/nexmark/events.csv)
    build/release/bench/spate-bench nexmark --impl spate --c2c=off "${common[@]}" | tail -n 1 >>"$out"
    SPATE_FLINK_CONF=nexmark.buffer_timeout_ms=1 tools/flink/run-nexmark nexmark --impl flink \
      "${common[@]}" | tail -n 1 >>"$out"
  done
  echo "repetition $rep done" >&2
done
