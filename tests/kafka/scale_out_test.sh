#!/usr/bin/env bash
# Scale-out through a consumer group, with real processes: two kafka_words processes share
# a 4-partition topic; one is killed (SIGKILL: no goodbye to the group) midway; the other
# takes its partitions over after the group's session time-out. Then every input line must
# be in the output, and the words of the output (one copy per line) must count exactly as
# a sequential count of the same lines does.
#
#   scale_out_test.sh BROKERS KAFKA_WORDS SPATE_KAFKA_BENCH
set -euo pipefail
brokers=$1 words=$2 bench=$3
lines=60000
run=$$-$RANDOM
input=scale-in-$run output=scale-out-$run group=scale-$run
"$bench" load --brokers "$brokers" --topic "$input" --lines "$lines" --partitions 4
"$bench" load --brokers "$brokers" --topic "$output" --lines 0 --partitions 4

# 150 us per line: ~9 s of work for the two, so the kill comes midway.
"$words" --brokers "$brokers" --input "$input" --output "$output" --group "$group" \
  --delay-us 150 2>/tmp/scale-out-a-$run.log &
a=$!
"$words" --brokers "$brokers" --input "$input" --output "$output" --group "$group" \
  --delay-us 150 2>/tmp/scale-out-b-$run.log &
b=$!
trap 'kill -9 $a $b 2>/dev/null || true' EXIT
sleep 5
kill -9 "$a"
echo "scale_out_test: killed one of the two processes (pid $a) midway"
if ! "$bench" check-words --brokers "$brokers" --topic "$output" --lines "$lines" \
  --input "$input"; then
  echo "scale_out_test: the killed process's log:"; cat /tmp/scale-out-a-$run.log
  echo "scale_out_test: the surviving process's log:"; cat /tmp/scale-out-b-$run.log
  exit 1
fi
kill -TERM "$b"
wait "$b" || true
