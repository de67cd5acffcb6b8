#!/bin/sh
# expect_failure.sh STATUS REGEX COMMAND [ARG...]
# Runs COMMAND and passes when it exits with STATUS (an exit, so not a
# signal, which the shell reports as 128+N) and its output (stdout and
# stderr) matches the extended regular expression REGEX.
want=$1 regex=$2
shift 2
out=$("$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$want" ]; then
  echo "expect_failure: exit status $status, expected $want" >&2
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect_failure: output does not match: $regex" >&2
  exit 1
fi
echo "expect_failure: exit status $status and the expected message"
