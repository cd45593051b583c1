#!/usr/bin/env bash
# The service pattern (examples/service.cpp, docs/patterns.md "Running as a service"):
#
#   service_sigterm_test.sh SERVICE WORK_DIR sigterm      start it, wait for its "ready" line
#       (5000 readings written), send SIGTERM; it must exit 0 after draining: the file holds
#       every reading the source sent (1..N, in order, each with its square) and ends with the
#       summary line for N.
#   service_sigterm_test.sh SERVICE WORK_DIR bad-output   an output file that cannot be
#       opened (the fault): exit 1 with a message naming the file and the OS's reason.
#
# No sleeps: the test reads the service's stdout through a pipe and waits for lines; ctest's
# TIMEOUT bounds a service that never answers.
set -euo pipefail
service=$1
work=$2
mode=$3
fail() {
  echo "FAIL: $*"
  exit 1
}

if [[ $mode == bad-output ]]; then
  set +e
  message=$("$service" --output "$work/no-such-dir/out.txt" 2>&1 >/dev/null)
  status=$?
  set -e
  [[ $status == 1 ]] || fail "exit status $status, expected 1"
  [[ $message == *"cannot open '$work/no-such-dir/out.txt': No such file or directory"* ]] ||
    fail "message: $message"
  echo "service test ok: bad output refused"
  exit 0
fi

out=$work/service-sigterm-output.txt
rm -f "$out"
# "ready" after 5000 records: SIGTERM lands while readings are in flight through the farm.
coproc SVC { exec "$service" --output "$out" --ready-after 5000; }
pid=$SVC_PID
# A failed check must not leave the service running (it blocks SIGTERM until it drains).
trap 'kill -KILL "$pid" 2>/dev/null || true' EXIT
exec {from_service}<&"${SVC[0]}"  # our own copy: bash closes the coproc's when it exits

IFS= read -r line <&"$from_service" || fail "the service ended without a readiness line"
[[ $line == ready ]] || fail "first line '$line', expected 'ready'"
kill -TERM "$pid"
set +e
wait "$pid"
status=$?
set -e
[[ $status == 0 ]] || fail "exit status $status after SIGTERM, expected 0"

IFS= read -r line <&"$from_service" || fail "no 'sent N' line"
[[ $line =~ ^sent\ ([0-9]+)$ ]] || fail "line '$line', expected 'sent N'"
sent=${BASH_REMATCH[1]}
((sent > 0)) || fail "nothing sent"

[[ -f $out ]] || fail "no output file"
last=$(tail -n 1 "$out")
[[ $last == "summary: $sent readings, drained" ]] ||
  fail "last line '$last', expected 'summary: $sent readings, drained'"
lines=$(wc -l <"$out")
((lines == sent + 1)) || fail "$lines lines for $sent readings and a summary"
# Every reading once, in order, with its square: nothing lost, duplicated or cut short.
awk -v n="$sent" 'NR <= n && ($1 != NR || $2 != NR * NR || NF != 2) { print "line " NR ": " $0; bad = 1; exit }
                  END { exit bad }' "$out" || fail "the readings are not 1..$sent with their squares"
echo "service test ok: $sent readings drained after SIGTERM"
