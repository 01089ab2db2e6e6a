#!/usr/bin/env bash
# Start-up, as an application meets it: the first load in a new process, cold and warm, for sets of 1, 10, 100,
# 1,000 and 10,000 files (1-64 KiB, log-uniform). Each measurement is a new process (`fastload bench` starts one per
# method per cache state per round) that times its first load and then a later one; cold, every file is evicted from
# the page cache before each load (a reboot, a new node); warm, the files stay cached (most restarts). The loop,
# Parallel.ForEachAsync, FastLoad, raw libc threads through P/Invoke and, when a C compiler is present, the native
# reader of benchmarks/native (64 threads, the device's limit cold; one thread per core, the machine's limit warm) run
# side by side in every round. About 8 minutes on the project VM (2 cores) with the default 7 rounds.
#
# Output: benchmarks/results/startup/<deployment>-<files>.md (the tool's table), gitignored. `fastload bench --json`
# gives the same medians as JSON.
# Settings (environment): FASTLOAD_STARTUP_DATA (data folder, default /tmp/fastload-startup), FASTLOAD_STARTUP_ROUNDS
# (default 7), FASTLOAD_STARTUP_SETS (default "1 10 100 1000 10000"; empty for the packs only), FASTLOAD_STARTUP_DEPLOYMENTS (default
# "il build r2r aot": the tool under the JIT with FastLoad.dll as IL, the same as a Release build makes it (FastLoad.dll
# precompiled for this machine), published ReadyToRun, published NativeAOT).
#
# Then packs: a folder (FASTLOAD_STARTUP_PACK_TREE, default /usr/include; empty skips it) is packed once, and in each
# round every deployment loads the pack and the loose folder with `fastload load --json`, a new process each, cold
# (`--cold`) and warm (the same load run once just before); the JIT deployments also load the pack with
# DOTNET_TieredCompilation=0, the same code optimized from the start. Output: benchmarks/results/startup/pack.md
# (medians, min-max, ratios). FASTLOAD_STARTUP_BASELINE (a checkout of another commit, say a `git worktree` of the one
# before a change) builds the same deployments there too, and every round also loads the pack with them, interleaved:
# before and after in one run. FASTLOAD_STARTUP_BUILD=0 reuses the tools already in the data folder (build them once
# outside a timed section, then measure).
set -euo pipefail
cd "$(dirname "$0")/.."

data=${FASTLOAD_STARTUP_DATA:-/tmp/fastload-startup}
rounds=${FASTLOAD_STARTUP_ROUNDS:-7}
sets=${FASTLOAD_STARTUP_SETS-1 10 100 1000 10000}
deployments=${FASTLOAD_STARTUP_DEPLOYMENTS:-il build r2r aot}
case $(uname -m) in x86_64) rid=linux-x64 ;; aarch64) rid=linux-arm64 ;; *) rid=unknown ;; esac
results=$PWD/benchmarks/results/startup
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
mkdir -p "$results" "$data"

baseline=${FASTLOAD_STARTUP_BASELINE:-}
# build_tools CHECKOUT SUFFIX: every deployment of the tool from CHECKOUT, into $data/tool-<deployment>SUFFIX.
build_tools() {
  local project=$1/src/FastLoad.Cli out
  for deployment in $deployments; do
    out=$data/tool-$deployment$2
    case $deployment in
      # The tool under the JIT: FastLoad.dll as IL, and as a Release build makes it (precompiled for this machine).
      il) dotnet build "$project" -c Release -p:BuildReadyToRun=false -o "$out" >/dev/null ;;
      build) dotnet build "$project" -c Release -o "$out" >/dev/null ;;
      r2r) dotnet publish "$project" -c Release -r "$rid" --self-contained false -p:PublishAot=false -p:PublishReadyToRun=true -o "$out" >/dev/null ;;
      aot) dotnet publish "$project" -c Release -r "$rid" -o "$out" >/dev/null ;;  # the tool is PublishAot
      *) echo "unknown deployment '$deployment' (il, build, r2r or aot)" >&2; exit 2 ;;
    esac
  done
}
if [ "${FASTLOAD_STARTUP_BUILD:-1}" != 0 ]; then
  echo "== build"
  build_tools "$PWD" ""
  [ -z "$baseline" ] || build_tools "$baseline" -baseline
fi
native=()
if command -v cc >/dev/null; then
  cc -O2 -pthread -o "$data/reference-reader" benchmarks/native/reference-reader.c
  native=(--native-reader "$data/reference-reader")
else
  echo "no C compiler: the native reader is left out (the P/Invoke reference reader still runs)"
fi

for files in $sets; do
  set_dir=$data/set-$files
  if [ ! -d "$set_dir" ]; then
    # demo writes a deterministic set where --dir says, and keeps it; its one round is thrown away.
    "$(ls "$data"/tool-*/FastLoad.Cli | head -n 1)" demo --files "$files" --min-size 1024 --max-size 65536 --rounds 1 --dir "$set_dir" >/dev/null
  fi

  for deployment in $deployments; do
    echo "== $files files, $deployment"
    # To a file, not a pipe: a reader started beside the measurement would take a core.
    "$data/tool-$deployment/FastLoad.Cli" bench "$set_dir" --rounds "$rounds" "${native[@]}" >"$results/$deployment-$files.md"
    cat "$results/$deployment-$files.md"
  done
done

source benchmarks/round-order.sh
pack_tree=${FASTLOAD_STARTUP_PACK_TREE-/usr/include}
if [ -n "$pack_tree" ]; then
  pack=$data/pack-tree.fpk
  first_tool=$(ls "$data"/tool-*/FastLoad.Cli | grep -v -- -baseline/ | head -n 1)
  [ -f "$pack" ] || "$first_tool" pack "$pack_tree" "$pack" >/dev/null
  # name|environment|arguments: the cases of one round (round_order).
  cases=()
  for deployment in $deployments; do
    cases+=("pack, $deployment|-|$deployment load $pack" "loose, $deployment|-|$deployment load $pack_tree -r")
    [ -z "$baseline" ] || cases+=("pack, $deployment, baseline|-|$deployment-baseline load $pack")
    case $deployment in il|build|r2r) cases+=("pack, $deployment, TieredCompilation=0|DOTNET_TieredCompilation=0|$deployment load $pack") ;; esac
  done
  out=$results/pack.md
  json=$data/pack-run.json
  {
    echo "Pack start-up: $pack_tree and its pack ($("$first_tool" list "$pack" | wc -l) entries, $(stat -c %s "$pack") bytes), new process each, $rounds rounds, $(date -u '+%F %H:%M UTC')"
    for cache in cold warm; do
      declare -A times=()
      for ((round = 0; round < rounds; round++)); do
        for i in $(round_order ${#cases[@]} "$round"); do
          IFS='|' read -r name environment command <<<"${cases[$i]}"
          read -r deployment arguments <<<"$command"
          run=(env)
          [ "$environment" = "-" ] || run+=("$environment")
          run+=("$data/tool-$deployment/FastLoad.Cli")
          # shellcheck disable=SC2206 # the arguments are words
          run+=($arguments --json)
          if [ "$cache" = cold ]; then run+=(--cold); else "${run[@]}" >/dev/null; fi
          # To a file, then parsed: nothing starts beside the timed process.
          "${run[@]}" >"$json"
          times[$name]+="$(sed -n 's/.*"seconds": \([0-9.]*\).*/\1/p' "$json") "
        done
      done
      echo
      echo "| $cache | median ms | min-max ms |"
      echo "|---|---:|---:|"
      for entry in "${cases[@]}"; do
        name=${entry%%|*}
        # shellcheck disable=SC2086 # one number per word
        printf '%s\n' ${times[$name]} | sort -g | awk -v name="$name" '{ v[NR] = $1 * 1000 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "| %s | %.1f | %.1f-%.1f |\n", name, m, v[1], v[NR] }'
      done
      unset times
    done
  } >"$out"
  cat "$out"
fi
