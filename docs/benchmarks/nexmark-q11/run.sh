#!/usr/bin/env bash
# Nexmark q11 (user sessions) on spate and on Flink, interleaved: the same 5,000,000 events of
# build/nexmark/events.csv, parallelism 2, REPS repetitions (default 5). Appends one JSON line
# per run to runs.jsonl beside this script. From the repository's root, after
#   cmake --build --preset release --target spate-bench nexmark
#   build/release/examples/nexmark generate --events 5000000 --out build/nexmark/events.csv
set -euo pipefail
out="$(dirname "$0")/runs.jsonl"
reps=${REPS:-5}
common=(--query=q11 --events=5000000 --replicas=2 --source=file
        --events_file=build/nexmark/events.csv)
for rep in $(seq "$reps"); do
  build/release/bench/spate-bench nexmark --impl spate --c2c=off "${common[@]}" | tail -n 1 >>"$out"
  tools/flink/run-nexmark nexmark --impl flink "${common[@]}" | tail -n 1 >>"$out"
  echo "repetition $rep done" >&2
done
