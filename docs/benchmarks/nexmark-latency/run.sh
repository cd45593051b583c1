#!/usr/bin/env bash
# Nexmark latency at a rate both engines sustain: q0 (stateless), q3 and q20 (regular joins,
# rows made as the second event arrives) on spate and on Flink, interleaved, the first EVENTS
# (default 500,000) events of build/nexmark/events.csv sent at RATE a second (default 50,000:
# 10 s), parallelism 2, REPS repetitions (default 5). Flink runs with a 1 ms network-buffer flush timeout
# (nexmark.buffer_timeout_ms=1; its default, 100 ms, trades latency for throughput). Latency:
# from the source's stamp as it sends an event to the sink's receipt of its row, every 16th
# row; each side's run time shows whether it kept the rate. SPATE_ARGS adds spate-bench options
# (e.g. "--topology=parallel --sinks=per-replica", with QUERIES naming stateless queries only,
# which alone take it: a paced source per core, each chained to the query and to a sink of its
# own, Flink's shape). Appends one JSON line per run to
# runs.jsonl beside this script (OUT=file: elsewhere); summarize it with
#   docs/benchmarks/nexmark-state/summarize.py docs/benchmarks/nexmark-latency/runs.jsonl
# From the repository's root, after
#   cmake --build --preset release --target spate-bench nexmark
#   build/release/examples/nexmark generate --events 5000000 --out build/nexmark/events.csv
set -euo pipefail
out=${OUT:-"$(dirname "$0")/runs.jsonl"}
reps=${REPS:-5}
queries=${QUERIES:-q0 q3 q20}
rate=${RATE:-50000}
events=${EVENTS:-500000}
read -r -a spate_args <<<"${SPATE_ARGS:-}"
for rep in $(seq "$reps"); do
  for q in $queries; do
    common=(--query="$q" --events="$events" --replicas=2 --source=file --rate="$rate"
            --events_file=build/nexmark/events.csv)
    build/release/bench/spate-bench nexmark --impl spate --c2c=off ${spate_args[@]+"${spate_args[@]}"} \
      "${common[@]}" | tail -n 1 >>"$out"
    SPATE_FLINK_CONF=nexmark.buffer_timeout_ms=1 tools/flink/run-nexmark nexmark --impl flink \
      "${common[@]}" | tail -n 1 >>"$out"
  done
  echo "repetition $rep done" >&2
done
