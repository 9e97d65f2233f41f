#!/bin/sh
# run-fuzz.sh FUZZER SEEDS WORKDIR SECONDS [libFuzzer options...]
#
# One bounded libFuzzer run (the meson suite `fuzz`, tests/fuzz/meson.build):
# SECONDS of fuzzing ($VITRAIL_FUZZ_SECONDS overrides it) starting from the
# seed corpus SEEDS (read only) and the corpus the earlier runs grew in
# WORKDIR/corpus; crash, leak, timeout and out-of-memory inputs go to
# WORKDIR/artifacts/. Exits with libFuzzer's status: any finding fails the
# test, and the log's tail shows the report and the input's path.
set -eu
fuzzer=$1
seeds=$2
work=$3
seconds=${VITRAIL_FUZZ_SECONDS:-$4}
shift 4
mkdir -p "$work/corpus" "$work/artifacts"
log="$work/fuzz.log"
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" "$@" \
	"$work/corpus" "$seeds" >"$log" 2>&1 || status=$?
name=$(basename "$fuzzer")
if [ "$status" -ne 0 ]; then
	echo "$name: libFuzzer exited with status $status; log $log:"
	tail -n 60 "$log"
	exit "$status"
fi
# The last status line says how many inputs ran and how fast.
grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 | sed "s/^/$name: /"
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
	"$log" | sed "s/^/$name: /"
