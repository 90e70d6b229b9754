#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# benchmarks/regress.sh BUILD_BIN OUTDIR: the fixed-seed regression set that
# speed changes are checked against. Each run writes OUTDIR/NAME.json;
# compare two trees with `benchmarks/regress-diff.py A B` (every field but
# wall_s and peak_rss_bytes, which depend on the machine; `events` is shown
# separately because speed changes may lower it and nothing else).
set -euo pipefail
bin="${1:?usage: regress.sh BUILD/bin/hockney OUTDIR}"
out="${2:?usage: regress.sh BUILD/bin/hockney OUTDIR}"
mkdir -p "$out"
run() {
  local name="$1"; shift
  "$bin" compare --format=json "$@" >"$out/$name.json" 2>"$out/$name.err" || echo "exit $?" >>"$out/$name.err"
}
P=(--backends=packet,alphabeta)
run dgx-ring-16MB     "${P[@]}" --topology=dgx-h100 --collective=allreduce --algorithm=ring --bytes=16MB
run dgx-ring-8B       "${P[@]}" --topology=dgx-h100 --collective=allreduce --algorithm=ring --bytes=8B
run dgx-allgather-1MB "${P[@]}" --topology=dgx-h100 --collective=allgather --algorithm=ring --bytes=1MB
run dgx-bcast-tree-1MB "${P[@]}" --topology=dgx-h100 --collective=broadcast --algorithm=tree --bytes=1MB
run dgx-nvls-64MB     "${P[@]}" --topology=dgx-h100 --collective=allreduce --algorithm=nvls --bytes=64MB
run rail4-ring-4MB    "${P[@]}" --topology=rail-h100-4n --collective=allreduce --algorithm=ring --bytes=4MB
run rail4-hier-16MB   "${P[@]}" --topology=rail-h100-4n --collective=allreduce --algorithm=hierarchical --bytes=16MB
run rail2-nvlstree-16MB "${P[@]}" --topology=rail-h100-2n --collective=allreduce --algorithm=nvls-tree --channels=8 --bytes=16MB
run rail4-auto-4MB    "${P[@]}" --topology=rail-h100-4n --collective=allreduce --algorithm=auto --bytes=4MB
run ft4-a2a-4MB       "${P[@]}" --topology=fat-tree-k4 --collective=alltoall --algorithm=all-at-once --bytes=4MB
run ft4-a2a-pair-16MB "${P[@]}" --topology=fat-tree-k4 --collective=alltoall --algorithm=pairwise --bytes=16MB
run ft4-ring-128KB    "${P[@]}" --topology=fat-tree-k4 --collective=allreduce --algorithm=ring --bytes=128KB
run ft8-a2a-64-2MB    "${P[@]}" --topology=fat-tree-k8 --ranks=64 --collective=alltoall --algorithm=all-at-once --bytes=2MB
run incast-1MB        "${P[@]}" --topology=roce-leafspine --collective=incast --bytes=1MB
run incast-32MB       "${P[@]}" --topology=roce-leafspine --collective=incast --bytes=32MB
"$bin" validate --format=json >"$out/validate.json" 2>"$out/validate.err" || echo "exit $?" >>"$out/validate.err"
