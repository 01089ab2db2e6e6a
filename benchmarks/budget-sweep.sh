#!/usr/bin/env bash
# The memory budget swept from 1 MiB to the default, on both read paths: the io_uring rings, and the reader threads a
# container gets where io_uring is refused (tools/no-io-uring.c refuses it as Docker's seccomp profile does). Sets of
# small files (about 15 KiB) and of larger ones (about 100 KiB), cold and warm. Each load is `fastload load --json` in
# a new process; the cells are medians of the rounds, interleaved (every budget and path once per round).
#
# Output: a Markdown table on stdout and in benchmarks/results/budget-sweep.md (gitignored).
# Settings (environment): FASTLOAD_SWEEP_DATA (default /tmp/fastload-sweep), FASTLOAD_SWEEP_ROUNDS (default 5),
# FASTLOAD_SWEEP_BUDGETS (MiB, default "1 2 4 8 16 32 default"), FASTLOAD_SWEEP_SETS (folders to load instead of the
# generated ones, space separated).
set -euo pipefail
cd "$(dirname "$0")/.."

data=${FASTLOAD_SWEEP_DATA:-/tmp/fastload-sweep}
rounds=${FASTLOAD_SWEEP_ROUNDS:-5}
budgets=${FASTLOAD_SWEEP_BUDGETS:-1 2 4 8 16 32 default}
results=$PWD/benchmarks/results
mkdir -p "$data" "$results"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1

echo "== build" >&2
dotnet build src/FastLoad.Cli -c Release -o "$data/tool" >/dev/null
cc -O2 -o "$data/no-io-uring" tools/no-io-uring.c
tool=$data/tool/FastLoad.Cli

if [ -n "${FASTLOAD_SWEEP_SETS:-}" ]; then
  sets=$FASTLOAD_SWEEP_SETS
else
  # 8,000 files of 8-24 KiB (about 15 KiB) and 2,000 of 64-160 KiB (about 100 KiB), generated once and kept.
  [ -d "$data/small" ] || "$tool" demo --files 8000 --min-size 8192 --max-size 24576 --rounds 1 --dir "$data/small" >/dev/null
  [ -d "$data/large" ] || "$tool" demo --files 2000 --min-size 65536 --max-size 163840 --rounds 1 --dir "$data/large" >/dev/null
  sets="$data/small $data/large"
fi

# One load in a new process; prints its seconds. $1: path (ring|threads), $2: cache (cold|warm), $3: budget, $4: set.
measure() {
  local prefix=() options=(load "$4" --recursive --json)
  [ "$1" = threads ] && prefix=("$data/no-io-uring")
  [ "$2" = cold ] && options+=(--cold)
  [ "$3" != default ] && options+=(--budget $(($3 * 1024 * 1024)))
  # To a file, not a pipe: a reader started beside the measurement would take a core.
  "${prefix[@]}" "$tool" "${options[@]}" >"$data/out.json"
  sed -n 's/.*"seconds": *\([0-9.]*\).*/\1/p' "$data/out.json"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A times
for round in $(seq 1 "$rounds"); do
  echo "round $round/$rounds" >&2
  for set in $sets; do
    cat "$(find "$set" -type f | head -n 1)" >/dev/null
    for cache in cold warm; do
      for path in ring threads; do
        for budget in $budgets; do
          if [ "$cache" = warm ]; then find "$set" -type f -exec cat {} + >/dev/null; fi
          times["$set|$cache|$path|$budget"]+="$(measure "$path" "$cache" "$budget" "$set") "
        done
      done
    done
  done
done

{
  echo "Budget sweep, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, medians of $rounds rounds (seconds; in brackets, the time over the same path's time at the default budget)."
  for set in $sets; do
    files=$(find "$set" -type f | wc -l)
    mbytes=$(du -sm "$set" | cut -f1)
    echo
    echo "$set: $files files, $mbytes MB"
    echo
    printf '| cache | path |'; for budget in $budgets; do printf ' %s |' "$budget"; done; echo
    printf '|---|---|'; for budget in $budgets; do printf -- '---:|'; done; echo
    for cache in cold warm; do
      for path in ring threads; do
        base=$(tr ' ' '\n' <<<"${times["$set|$cache|$path|default"]:-}" | grep . | median || true)
        printf '| %s | %s |' "$cache" "$path"
        for budget in $budgets; do
          m=$(tr ' ' '\n' <<<"${times["$set|$cache|$path|$budget"]}" | grep . | median)
          if [ -n "$base" ]; then printf ' %.3f (%.2fx) |' "$m" "$(awk -v a="$m" -v b="$base" 'BEGIN { print a / b }')"; else printf ' %.3f |' "$m"; fi
        done
        echo
      done
    done
  done
} | tee "$results/budget-sweep.md"
