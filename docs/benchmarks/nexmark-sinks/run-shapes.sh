#!/usr/bin/env bash
# spate alone, the stateless Nexmark queries in three graph shapes, interleaved: one source →
# 2 query replicas → one sink (--topology=single); a source per core with the query chained,
# → one sink (--topology=parallel); and a source per core with the query and a sink of its own
# chained (--topology=parallel --sinks=per-replica). The same 5,000,000 events of
# build/nexmark/events.csv, REPS repetitions (default 3). Appends one JSON line per run to
# runs-shapes.jsonl beside this script (OUT=FILE: there instead). From the repository's root,
# after
#   cmake --build --preset release --target spate-bench nexmark
#   build/release/examples/nexmark generate --events 5000000 --out build/nexmark/events.csv
set -euo pipefail
out=${OUT:-"$(dirname "$0")/runs-shapes.jsonl"}
reps=${REPS:-3}
queries=${QUERIES:-q0 q1 q2 q13 q14 q21 q22}
for rep in $(seq "$reps"); do
  for q in $queries; do
    for shape in "--topology=single" "--topology=parallel" \
        "--topology=parallel --sinks=per-replica"; do
      # shellcheck disable=SC2086
      build/release/bench/spate-bench nexmark --impl spate --c2c=off --query="$q" \
        --events=5000000 --replicas=2 --source=file --events_file=build/nexmark/events.csv \
        $shape | tail -n 1 >>"$out"
    done
  done
  echo "repetition $rep done" >&2
done
