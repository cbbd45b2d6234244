#!/usr/bin/env bash
# The include graph of src/subsim as ARCHITECTURE.md draws it ("Who may include whom"): folders
# in one order, each including only folders before it (so no circle), and the narrower rules of
# the plain-data and solver layers.  Prints every offending include (file, line, folder) and
# exits 1 on any.  Usage: check_layers.sh SOURCE_DIR
set -euo pipefail
src="$1/src/subsim"

# Lower first.  A folder may include itself and the folders before it.
order=(math problem formulation solvers metrics articulation fem geometry model partition
       assembly io scenarios sim bench)
# Narrower than the order: plain data knows nothing but math, a solver nothing of the model,
# metrics judge any solver without including one, geometry works on shapes and poses.
declare -A only=(
  [problem]="math"
  [formulation]="math problem"
  [solvers]="math problem formulation"
  [metrics]="math problem formulation"
  [geometry]="math"
)

declare -A rank=()
for i in "${!order[@]}"; do rank[${order[$i]}]=$i; done

status=0
for dir in "$src"/*/; do
  folder=$(basename "$dir")
  if [[ -z "${rank[$folder]+x}" ]]; then
    echo "src/subsim/$folder: a folder not in the layer order of tests/layers/check_layers.sh;" \
         "add it where ARCHITECTURE.md places it"
    status=1
    continue
  fi
  while IFS=: read -r file line text; do
    target=$(sed -E 's|.*#include "subsim/([a-z_]+)/.*|\1|' <<<"$text")
    [[ "$target" == "$folder" ]] && continue
    reason=""
    if [[ -z "${rank[$target]+x}" ]]; then
      reason="unknown folder $target"
    elif [[ -n "${only[$folder]+x}" && " ${only[$folder]} " != *" $target "* ]]; then
      reason="$folder/ may include only: ${only[$folder]}"
    elif (( ${rank[$target]} > ${rank[$folder]} )); then
      reason="$target/ is above $folder/ (order: ${order[*]})"
    fi
    if [[ -n "$reason" ]]; then
      echo "${file#"$1/"}:$line: includes subsim/$target/: $reason"
      status=1
    fi
  done < <(grep -rnE '#include "subsim/[a-z_]+/' "$dir" || true)
done
if (( status == 0 )); then echo "layers: the include graph of src/subsim follows ARCHITECTURE.md"; fi
exit $status
