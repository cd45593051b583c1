#!/usr/bin/env bash
# Runs a word-count demo on data/wordcount/unicode_and_malformed.txt and checks what the
# sequential self-check cannot: that letters of other scripts make whole words, lower-cased
# across scripts, and that each malformed line is reported (by number and in the count)
# rather than split or dropped.   usage: check_wordcount_output.sh DEMO TEXT_FILE
set -euo pipefail
demo=$1
file=$2
output=$("$demo" --file "$file" --replay 3 --top 30 2>&1)
echo "$output"
expect() {
  if ! grep -qE -- "$1" <<<"$output"; then
    echo "FAILED: expected a line matching: $1"
    exit 1
  fi
}
expect '^counted 63 words \(16 distinct\)'
expect '^skipped 9 malformed records \(lines that are not valid UTF-8\): lines 2, 4, 5 of the file$'
expect '^ +12  café$'     # Café, CAFÉ and café (x3 replays): one word
expect '^ +3  cafe$'      # a different word
expect '^ +6  σοφία$'     # Greek, in lower and upper case
expect '^ +3  софия$'     # Cyrillic
expect '^ +3  naïve$'
expect '^check: identical to a sequential count of the same text$'
echo "wordcount output ok"
