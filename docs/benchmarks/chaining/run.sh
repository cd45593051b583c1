#!/bin/bash
cd "$(dirname "$0")/../../.."
for rep in 1 2 3 4 5; do
  for g in farms chained unchained; do
    ./build/release/bench/spate-bench apps --impl=spate --app=wc --replicas=1 --n=600000 --wc_graph=$g 2>/dev/null | tail -1 | sed "s/^/$rep wc /"
  done
  for q in q0 q1 q2; do
    for t in "single --chaining=on" "parallel --chaining=on" "parallel --chaining=off"; do
      ./build/release/bench/spate-bench nexmark --impl=spate --query=$q --events=5000000 --replicas=2 --source=file --topology=$t 2>/dev/null | tail -1 | sed "s/^/$rep $q /"
    done
  done
done
