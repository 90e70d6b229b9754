#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# fuzz/run-fuzzer.sh [--short] FUZZER TARGET WORKDIR [libFuzzer flags ...]
#
# Runs the libFuzzer binary FUZZER (build/bin/fuzz-TARGET) over the seeds of
# fuzz/corpus/TARGET with the dictionary fuzz/dict/TARGET.dict, with the
# limits every run uses (10 s per input, 2 GB). New inputs go to
# WORKDIR/TARGET/corpus (kept between runs: a campaign resumes where it
# stopped), crashes, leaks and hangs to WORKDIR/TARGET/artifacts/. With
# --short (the ctest test) the new inputs go to a fresh directory instead, so
# that every short run starts from the seeds alone. Flags after WORKDIR are
# passed on (-max_total_time=600, -jobs=2, ...); a later flag wins over the
# defaults here.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
short=0
if [ "${1:-}" = "--short" ]; then
  short=1
  shift
fi
if [ $# -lt 3 ]; then
  echo "usage: fuzz/run-fuzzer.sh [--short] FUZZER TARGET WORKDIR [libFuzzer flags ...]" >&2
  exit 2
fi
fuzzer="$1" target="$2" work="$3/$2"
shift 3
seeds="$here/corpus/$target"
[ -d "$seeds" ] || { echo "run-fuzzer.sh: TARGET: expected one of $(ls "$here/corpus" | tr '\n' ' '), got '$target'" >&2; exit 2; }
corpus="$work/corpus"
if [ "$short" = 1 ]; then
  corpus="$work/short-corpus"
  rm -rf "$corpus"
fi
mkdir -p "$corpus" "$work/artifacts"
dict=()
[ -f "$here/dict/$target.dict" ] && dict=(-dict="$here/dict/$target.dict")
# A UB report's stack, and ASan's leak check at exit (libFuzzer's -detect_leaks).
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
# The short run (ctest) is the same every time: a fixed seed, and 30 s per
# input, since the sanitized tree may run on a loaded 2-core machine.
fixed=()
[ "$short" = 1 ] && fixed=(-seed=1 -timeout=30)
exec "$fuzzer" -timeout=10 -rss_limit_mb=2048 "${fixed[@]}" -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "${dict[@]}" "$@" "$corpus" "$seeds"
