for rep in 1 2 3; do
  for impl in spate-actor caf1; do
    bin=build/release/bench/spate-bench; [ $impl = caf1 ] && bin=/work/wt-caf1/build/h/bench/spate-bench-caf1
    echo "== $impl rep $rep"; $bin latency_chain --impl $impl --rate=10 --seconds=30 --threads=2 2>&1 | tail -3
  done
done
