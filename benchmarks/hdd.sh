#!/usr/bin/env bash
# Read depth and order on a hard disk: automatic against fixed depths, each in the set's order and in physical order,
# for a folder on a disk that seeks (a real spinning disk, or a model of one with seeks by distance, rotation and a
# drive that reorders its queue; a throttle that charges every request the same, as tools/emulated-hdd.sh does,
# measures every depth and order alike). Each measurement is a new process, `fastload load FOLDER -r --json` with
# `--dop N --physical-order On|Off` or neither; a round runs every case once, in an order of its own
# (round-order.sh), and the medians and ranges of the reported seconds are printed.
#
#   benchmarks/hdd.sh FOLDER [FASTLOAD=fastload]
#
# Cold: pages only by default (`--cold`: each file evicted from the page cache; inodes and folders stay cached). Set
# FASTLOAD_HDD_COLD to a command that drops the file system's metadata too (a remount, e.g. `umount M && mount M`) to
# run each process truly cold, as after a reboot. Settings (environment): FASTLOAD_HDD_ROUNDS (default 3),
# FASTLOAD_HDD_DEPTHS (default "4 16 64 128"). Output: one line per measurement, then the summary, on stdout.
set -euo pipefail
folder=${1:?usage: benchmarks/hdd.sh FOLDER [FASTLOAD]}
tool=${2:-fastload}
rounds=${FASTLOAD_HDD_ROUNDS:-3}
cases=("automatic|")
for depth in ${FASTLOAD_HDD_DEPTHS:-4 16 64 128}; do
  cases+=("set order $depth|--dop $depth --physical-order Off" "physical $depth|--dop $depth --physical-order On")
done

source "$(dirname "$0")/round-order.sh"

lines=$(mktemp)
trap 'rm -f "$lines"' EXIT
for ((round = 0; round < rounds; round++)); do
  for k in $(round_order ${#cases[@]} "$round"); do
    entry=${cases[$k]}
    name=${entry%%|*}
    read -r -a options <<< "${entry#*|}"
    if [ -n "${FASTLOAD_HDD_COLD:-}" ]; then
      bash -c "$FASTLOAD_HDD_COLD" > /dev/null
      cold=()
    else
      cold=(--cold)
    fi

    report=$("$tool" load "$folder" -r --json "${cold[@]}" "${options[@]}" || true)
    seconds=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["seconds"])' <<< "$report")
    printf '%s\t%s\n' "$name" "$seconds" | tee -a "$lines"
  done
done

python3 - "$lines" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, seconds = line.rstrip("\n").split("\t")
    runs.setdefault(name, []).append(float(seconds))
best = min(statistics.median(v) for k, v in runs.items() if k != "automatic")
print(f"\n| case | median s | range | best fixed / this |\n|---|---:|---|---:|")
for name, values in runs.items():
    median = statistics.median(values)
    print(f"| {name} | {median:.3f} | {min(values):.3f}-{max(values):.3f} | {best / median:.2f} |")
PY
