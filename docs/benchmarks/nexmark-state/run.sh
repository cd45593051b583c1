#!/usr/bin/env bash
# Nexmark's queries with state (q3, q5, q7, q8, q20) on spate and on Flink, interleaved: the
# same 5,000,000 events of build/nexmark/events.csv, parallelism 2, REPS repetitions (default
# 5); each repetition runs every query, spate then Flink. Appends one JSON line per run to
# runs.jsonl beside this script; summarize.py prints the medians. TOPOLOGY=parallel (with
# QUERIES naming q3, q20 or stateless queries, the ones that take it) runs spate with a source
# per core, each chained to the query (q3, q20: to its first half), into runs-parallel.jsonl
# (Flink runs one source reader per core, but one reader in all for q4, q6, q9 and q15-q19);
# SPATE_ARGS adds spate-bench options (e.g. --sinks=per-replica with TOPOLOGY=parallel and the
# stateless queries: a sink chained to each source, as Flink's). OUT=FILE appends there
# instead. From the repository's root, after
#   cmake --build --preset release --target spate-bench nexmark
#   build/release/examples/nexmark generate --events 5000000 --out build/nexmark/events.csv
set -euo pipefail
topology=${TOPOLOGY:-single}
out="$(dirname "$0")/runs.jsonl"
[ "$topology" = single ] || out="$(dirname "$0")/runs-$topology.jsonl"
out=${OUT:-$out}
reps=${REPS:-5}
read -r -a spate_args <<<"${SPATE_ARGS:-}"
queries=${QUERIES:-q3 q5 q7 q8 q20}
for rep in $(seq "$reps"); do
  for q in $queries; do
    common=(--query="$q" --events=5000000 --replicas=2 --source=file
            --events_file=build/nexmark/events.csv)
    build/release/bench/spate-bench nexmark --impl spate --c2c=off --topology="$topology" \
      ${spate_args[@]+"${spate_args[@]}"} "${common[@]}" | tail -n 1 >>"$out"
    tools/flink/run-nexmark nexmark --impl flink "${common[@]}" | tail -n 1 >>"$out"
  done
  echo "repetition $rep done" >&2
done
