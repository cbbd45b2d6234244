#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (fuzz/README.md), one per core, from a working copy of
# its seed corpus; a crash, leak or timeout input lands in the build folder as crash-*, leak-* or
# timeout-* and fails the script.  libFuzzer runs in fork mode and goes on after a timeout, so
# that a hang inside a library (HDF5, fuzz/README.md) does not end the run: each target fuzzes
# for the whole time and every hang is kept.
#   bash fuzz/run.sh BUILD_DIR SECONDS [TARGET...]
set -euo pipefail
build="$1"
seconds="$2"
shift 2
here="$(cd "$(dirname "$0")" && pwd)"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_scene_file fuzz_urdf fuzz_tet_mesh fuzz_problem_file fuzz_recording fuzz_fclib_file fuzz_command_line)
jobs=$(nproc)
# alloc_dealloc_mismatch=0 and allocator_may_return_null=1: see SANITIZE_ENV in the Makefile.
export ASAN_OPTIONS=detect_leaks=1:alloc_dealloc_mismatch=0:allocator_may_return_null=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_SYMBOLIZER_PATH=/usr/bin/llvm-symbolizer-14
status=0
run_one() {
  local t="$1"
  local work="$build/fuzz-work/$t"
  mkdir -p "$work/corpus" "$work/artifacts"
  cp -n "$here/corpus/$t/"* "$work/corpus/" 2>/dev/null || true
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: a 2 GB allocation is a defect.
  # The HDF5 readers: libhdf5 1.10.8 itself crashes, hangs and runs out of memory on some corrupt
  # files (fuzz/README.md).  The readers now refuse any file whose seal does not fit, so none
  # should reach it; should one still, those targets go on after it, and it is kept and fails the
  # script, to be looked at.
  local library_faults=()
  case "$t" in
    fuzz_problem_file | fuzz_recording | fuzz_fclib_file) library_faults=(-ignore_crashes=1 -ignore_ooms=1) ;;
  esac
  "$build/fuzz/$t" -fork=1 -ignore_timeouts=1 "${library_faults[@]}" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -max_len=65536 -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
    "$work/corpus" > "$work/log.txt" 2>&1 || return 1
  # Fork mode exits 0 after ignored timeouts: they fail the target here.
  ! ls "$work/artifacts/" | grep -q .
}
pids=()
names=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  names+=("$t")
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || { echo "fuzz: ${names[0]} FAILED (see $build/fuzz-work/${names[0]}/log.txt)"; status=1; }
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { echo "fuzz: ${names[$i]} FAILED (see $build/fuzz-work/${names[$i]}/log.txt)"; status=1; }
done
for t in "${targets[@]}"; do
  log="$build/fuzz-work/$t/log.txt"
  # Fork mode's progress lines: "#RUNS: cov: ... exec/s: N ... time: SECONDSs".
  last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
  runs=$(echo "$last" | sed -E 's/^#([0-9]+):.*/\1/')
  secs=$(echo "$last" | grep -oE 'time: [0-9]+s' | grep -oE '[0-9]+')
  found=$(ls "$build/fuzz-work/$t/artifacts" | tr '\n' ' ')
  echo "fuzz: $t: ${runs:-?} executions in ${secs:-?} s, corpus $(ls "$build/fuzz-work/$t/corpus" | wc -l) inputs${found:+, found: $found}"
done
exit $status
