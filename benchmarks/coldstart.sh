#!/usr/bin/env bash
# Cold start of a web application with and without a start-up manifest: the time from exec to the first
# 200 answer of the ASP.NET Core template (`dotnet new web`) and of samples/WarmStart (the same template with
# StartupPrefetch), each in a new process, warm and cold, rounds interleaved, the cases of each in an order of its own.
# Cold: the .NET runtime (the dotnet host, host/ and shared/) and the application are evicted from the page cache
# before the run (posix_fadvise DONTNEED per file, benchmarks/native/evict.c), as after a reboot or a deploy.
#
# Cases, each round:
#   template warm | WarmStart warm (manifest present, all cached)
#   template cold | WarmStart cold, no manifest (the first start: it records) | WarmStart cold, manifest replayed in
#   the process | WarmStart cold, `fastload prefetch <manifest> & exec dotnet WarmStart.dll` (the NativeAOT tool starts
#   the replay before the .NET host) | WarmStart cold, `fastload prefetch <manifest>; exec dotnet WarmStart.dll` (the
#   replay first, to its end, then the start: what a start gains when nothing competes with the replay)
# on the normal disk, then (as root) on slow storage emulated by slowdisk (a FUSE-backed loop device whose reads cost
# what a 7200 rpm disk's do, `hdd`, or a network volume's, `net`) with the runtime, both applications and the tool
# copied onto it (DOTNET_ROOT), truly cold there: the file system remounted before each cold run (`slowdisk.sh cold`),
# which drops its data, inodes and folders. (A throttle that charges every read the same, as tools/emulated-hdd.sh does,
# cannot judge a replay on a disk that seeks, so it is not one of the disks here.)
#
# Then, on the normal disk, the warm cost of the manifest in many rounds (a few milliseconds against starts that vary
# by tens): template warm | WarmStart warm, no manifest | WarmStart warm, manifest, interleaved, each start paired with
# the template's in its round; the median of the paired differences with its 95% confidence interval (order
# statistics: no assumption on the spread's shape).
#
# Every timed run holds /tmp/fastload-bench.lock (shared with the other benchmarks of the machine) from the eviction to
# the end of the run. Output: medians and min-max per case, and the ratios the issue sets targets for (the cold penalty
# left both by medians and paired by round, with a bootstrap interval), in benchmarks/results/coldstart/coldstart.md
# (gitignored), and the times themselves, a round a line, in cold-rounds-<disk>-<UTC time>.tsv and
# warm-pairs-<UTC time>.tsv beside it. About 5 minutes with the default 7 rounds, and 2.5 more for 101 rounds of warm
# pairs.
# Settings (environment): FASTLOAD_COLDSTART_DATA (default /tmp/fastload-coldstart), FASTLOAD_COLDSTART_ROUNDS
# (default 7; 0 times the warm pairs only), FASTLOAD_COLDSTART_WARM_ROUNDS (default 101; 0 skips the warm pairs),
# FASTLOAD_COLDSTART_DISKS (default "ssd hdd net"), FASTLOAD_COLDSTART_PORT (default 5087),
# FASTLOAD_SLOWDISK (slowdisk.sh; default ../shared/tools/slowdisk/slowdisk.sh beside the repository),
# FASTLOAD_COLDSTART_MOUNTS (the prefix of slowdisk's mount points; default /mnt/sd-coldstart-).
set -euo pipefail
cd "$(dirname "$0")/.."

data=${FASTLOAD_COLDSTART_DATA:-/tmp/fastload-coldstart}
rounds=${FASTLOAD_COLDSTART_ROUNDS:-7}
warm_rounds=${FASTLOAD_COLDSTART_WARM_ROUNDS:-101}
disks=${FASTLOAD_COLDSTART_DISKS:-ssd hdd net}
port=${FASTLOAD_COLDSTART_PORT:-5087}
lock=/tmp/fastload-bench.lock
repo=$PWD
slowdisk=${FASTLOAD_SLOWDISK:-$repo/../shared/tools/slowdisk/slowdisk.sh}
mounts=${FASTLOAD_COLDSTART_MOUNTS:-/mnt/sd-coldstart-}
results=$repo/benchmarks/results/coldstart
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
mkdir -p "$data" "$results"
case $(uname -m) in x86_64) rid=linux-x64 ;; aarch64) rid=linux-arm64 ;; *) echo "unsupported machine $(uname -m)" >&2; exit 2 ;; esac
dotnet_root=$(dirname "$(readlink -f "$(command -v dotnet)")")

echo "== build"
cc -O2 -Wall -o "$data/first-answer" benchmarks/native/first-answer.c
cc -O2 -Wall -o "$data/evict" benchmarks/native/evict.c
if [ ! -f "$data/template-src/template-src.csproj" ]; then
  rm -rf "$data/template-src"
  dotnet new web -o "$data/template-src" >/dev/null
fi
# The template builds outside this repository, so that none of its build settings apply to it.
dotnet build "$data/template-src" -c Release -o "$data/ssd/template" >/dev/null
dotnet build samples/WarmStart -c Release -o "$data/ssd/warmstart" >/dev/null
dotnet publish src/FastLoad.Cli -c Release -r "$rid" -o "$data/ssd/tool" >/dev/null
manifest_name=WarmStart.startup-manifest
source benchmarks/round-order.sh

# One timed run: evict (cold) or run once untimed (warm; hot: the caller keeps everything cached), then time the first
# answer; prints milliseconds.
#   run DISK_ROOT DOTNET_ROOT CACHE APP LAUNCH
#   (LAUNCH: dotnet; tool for `fastload prefetch ... & exec dotnet`; tool-then for `fastload prefetch ...; exec dotnet`)
run() {
  local root=$1 runtime=$2 cache=$3 app=$4 launch=$5
  local start="exec \"$runtime/dotnet\" \"$root/$app/$app_dll\" >/dev/null 2>&1"
  case $launch in
    tool) start="\"$root/tool/FastLoad.Cli\" prefetch --quiet \"$root/$app/$manifest_name\" & $start" ;;
    tool-then) start="\"$root/tool/FastLoad.Cli\" prefetch --quiet \"$root/$app/$manifest_name\"; $start" ;;
  esac
  local evict=":"
  if [ "$cache" = cold ] && [ "${root#"$mounts"}" != "$root" ]; then
    evict="\"$slowdisk\" cold \"$root\""   # the runtime and the applications are all on it
  elif [ "$cache" = cold ]; then
    evict="\"$data/evict\" \"$runtime/dotnet\" \"$runtime/host\" \"$runtime/shared\" \"$root/$app\" \"$root/tool\" 2>/dev/null"
  elif [ "$cache" = warm ]; then
    DOTNET_ROOT=$runtime ASPNETCORE_URLS=http://127.0.0.1:$port "$data/first-answer" "$port" 120 sh -c "$start" >/dev/null
  fi
  DOTNET_ROOT=$runtime ASPNETCORE_URLS=http://127.0.0.1:$port \
    flock "$lock" sh -c "$evict; exec \"\$@\"" sh "$data/first-answer" "$port" 120 sh -c "$start"
}

# The WarmStart manifest for the runs that replay one: recorded by a warm start, kept aside.
prepare_manifest() {
  local root=$1 runtime=$2
  rm -f "$root/warmstart/$manifest_name"
  app_dll=WarmStart.dll run "$root" "$runtime" warm warmstart dotnet >/dev/null
  [ -f "$root/warmstart/$manifest_name" ] || { echo "WarmStart wrote no manifest" >&2; exit 1; }
  cp "$root/warmstart/$manifest_name" "$root/manifest.keep"
}

# The warm cost of the manifest: warm starts only (every file stays cached, so no untimed start before each), in pairs.
warm_pairs() {
  local root=$1 runtime=$2 round i
  local -A warm=()
  local names=("template" "WarmStart, no manifest" "WarmStart, manifest")
  app_dll=template-src.dll run "$root" "$runtime" warm template dotnet >/dev/null   # the cold runs left all evicted
  cp "$root/manifest.keep" "$root/warmstart/$manifest_name"
  app_dll=WarmStart.dll run "$root" "$runtime" warm warmstart dotnet >/dev/null
  for ((round = 0; round < warm_rounds; round++)); do
    ((round % 20 == 0)) && echo "== warm pairs: round $((round + 1)) of $warm_rounds" >&2
    for ((i = 0; i < 3; i++)); do
      local name=${names[$(((i + round) % 3))]} app=warmstart app_dll=WarmStart.dll
      case $name in
        template) app=template app_dll=template-src.dll ;;
        *", manifest") cp "$root/manifest.keep" "$root/warmstart/$manifest_name" ;;
        *) rm -f "$root/warmstart/$manifest_name" ;;
      esac
      warm[$name]+="$(run "$root" "$runtime" hot "$app" dotnet) "
    done
  done
  # The times themselves, a round a line, so that runs can be pooled.
  # shellcheck disable=SC2086 # one number per word
  paste <(printf '%s\n' ${warm[template]}) <(printf '%s\n' ${warm["WarmStart, no manifest"]}) \
    <(printf '%s\n' ${warm["WarmStart, manifest"]}) >"$results/warm-pairs-$(date -u '+%Y%m%dT%H%M').tsv"
  echo
  echo "warm cost of the manifest: $warm_rounds rounds of warm starts, interleaved, $(date -u '+%F %H:%M UTC')"
  echo
  echo "| warm start | median ms | difference, median of pairs | 95% confidence interval |"
  echo "|---|---:|---:|---:|"
  for name in "${names[@]}"; do
    # shellcheck disable=SC2086 # one number per word
    own=$(printf '%s\n' ${warm[$name]} | sort -g | paste -sd' ')
    # shellcheck disable=SC2086
    diff=$(paste -d' ' <(printf '%s\n' ${warm[template]}) <(printf '%s\n' ${warm[$name]}) | awk '{ print $2 - $1 }' | sort -g | paste -sd' ')
    awk -v name="$name" -v own="$own" -v diff="$diff" '
      function median(a, n) { return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      BEGIN {
        n = split(own, o, " "); split(diff, d, " ")
        # The median of n pairs lies between their k-th and (n+1-k)-th differences with 95% confidence.
        k = int(n / 2 - 0.98 * sqrt(n)); if (k < 1) k = 1
        if (name == "template") printf "| %s | %.1f | | |\n", name, median(o, n)
        else printf "| %s | %.1f | %+.1f ms | %+.1f to %+.1f ms |\n", name, median(o, n), median(d, n), d[k], d[n + 1 - k]
      }'
  done
  echo
  echo "target: the manifest costs at most 3 ms (WarmStart, manifest, against the template)"
}

# The cold penalty left by each replay, paired by round: 1 + median(case - template cold) / median(template cold -
# template warm), with a 95% bootstrap interval over the rounds (1,000 resamples). Medians of separate cases cannot
# tell 0.55 from 0.93 in 15 rounds on this kind of VM; rounds paired with their own template starts can do better.
#   paired_penalty_left ROUNDS_TSV (a header of case names, then a round a line)
paired_penalty_left() {
  awk -F'\t' '
    # Shell sort: no recursion (mawk has a small stack) and no gawk-only asort.
    function sort(a, n,   gap, i, j, v) {
      for (gap = int(n / 2); gap > 0; gap = int(gap / 2))
        for (i = gap + 1; i <= n; i++) { v = a[i]; for (j = i; j > gap && a[j - gap] > v; j -= gap) a[j] = a[j - gap]; a[j] = v }
    }
    function median(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    # The penalty left by column c over the rounds listed in pick[1..n].
    function left(c, pick, n,   i, d, p) {
      for (i = 1; i <= n; i++) { d[i] = t[pick[i], c] - t[pick[i], cold]; p[i] = t[pick[i], cold] - t[pick[i], warm] }
      return 1 + median(d, n) / median(p, n)
    }
    NR == 1 { for (i = 1; i <= NF; i++) column[$i] = i; warm = column["template warm"]; cold = column["template cold"]; next }
    { n++; for (i = 1; i <= NF; i++) t[n, i] = $i }
    END {
      split("WarmStart cold, manifest|WarmStart cold, manifest, fastload prefetch first|WarmStart cold, manifest, fastload prefetch to its end, then the start", names, "|")
      split("in the process|with fastload prefetch first|with fastload prefetch to its end first", labels, "|")
      srand(27)
      for (k = 1; k <= 3; k++) {
        c = column[names[k]]; if (!c) continue
        for (i = 1; i <= n; i++) all[i] = i
        estimate = left(c, all, n)
        for (b = 1; b <= 1000; b++) { for (i = 1; i <= n; i++) pick[i] = 1 + int(rand() * n); boot[b] = left(c, pick, n) }
        sort(boot, 1000)
        printf "%s%.2f %s (95%% %.2f to %.2f)", (k > 1 ? "; " : ""), estimate, labels[k], boot[25], boot[976]
      }
      printf "\n"
    }' "$1"
}

# name|app|cache|manifest|launch
cases=(
  "template warm|template|warm|-|dotnet"
  "WarmStart warm, manifest|warmstart|warm|keep|dotnet"
  "template cold|template|cold|-|dotnet"
  "WarmStart cold, no manifest|warmstart|cold|none|dotnet"
  "WarmStart cold, manifest|warmstart|cold|keep|dotnet"
  "WarmStart cold, manifest, fastload prefetch first|warmstart|cold|keep|tool"
  "WarmStart cold, manifest, fastload prefetch to its end, then the start|warmstart|cold|keep|tool-then"
)

out=$results/coldstart.md
: >"$out"
for disk in $disks; do
  root=$data/$disk
  runtime=$dotnet_root
  if [ "$disk" = hdd ] || [ "$disk" = net ]; then
    root=$mounts$disk
    if ! "$slowdisk" up "$root" "$disk" 4 >/dev/null; then
      echo "== slowdisk $disk skipped: it could not be mounted at $root" | tee -a "$out"
      continue
    fi
    trap '"$slowdisk" down "$root" rm' EXIT
  fi
  if [ "$disk" != ssd ]; then
    runtime=$root/dotnet
    mkdir -p "$runtime"
    cp -a "$dotnet_root/dotnet" "$dotnet_root/host" "$dotnet_root/shared" "$runtime/"
    cp -a "$data/ssd/template" "$data/ssd/warmstart" "$data/ssd/tool" "$root/"
    rm -f "$root/warmstart/$manifest_name"
    sync
  fi

  echo "== $disk: recording the manifest"
  prepare_manifest "$root" "$runtime"
  # The cold rounds; FASTLOAD_COLDSTART_ROUNDS=0 leaves only the warm pairs below.
  if ((rounds > 0)); then
    declare -A times=()
    for ((round = 0; round < rounds; round++)); do
      echo "== $disk: round $((round + 1)) of $rounds"
      for i in $(round_order ${#cases[@]} "$round"); do
        IFS='|' read -r name app cache manifest launch <<<"${cases[$i]}"
        app_dll=$([ "$app" = template ] && echo template-src.dll || echo WarmStart.dll)
        case $manifest in
          keep) cp "$root/manifest.keep" "$root/$app/$manifest_name" ;;
          none) rm -f "$root/$app/$manifest_name" ;;
        esac
        times[$name]+="$(run "$root" "$runtime" "$cache" "$app" "$launch") "
      done
    done

    # The times themselves, a round a line under the cases' names, so that runs can be pooled (awk turns each case's
    # line of times into a column).
    rounds_tsv=$results/cold-rounds-$disk-$(date -u '+%Y%m%dT%H%M').tsv
    for entry in "${cases[@]}"; do echo "${entry%%|*}|${times[${entry%%|*}]}"; done | awk -F'|' '
      { name[NR] = $1; m = split($2, v, " "); for (r = 1; r <= m; r++) t[NR, r] = v[r]; if (m > rounds) rounds = m }
      END {
        for (c = 1; c <= NR; c++) printf "%s%s", name[c], (c < NR ? "\t" : "\n")
        for (r = 1; r <= rounds; r++) for (c = 1; c <= NR; c++) printf "%s%s", t[c, r], (c < NR ? "\t" : "\n")
      }' >"$rounds_tsv"

    {
      echo
      echo "$disk: time to first answer, $rounds rounds, $(date -u '+%F %H:%M UTC'), $(nproc) cores, runtime $(basename "$(ls -d "$runtime"/shared/Microsoft.NETCore.App/*)")"
      echo "manifest: $("$root/tool/FastLoad.Cli" manifest show "$root/manifest.keep" | sed -n 's/^\(files\|bytes\) *//p' | paste -sd' ' | awk '{print $1 " files, " $2 " bytes"}')"
      echo
      echo "| $disk | median ms | min-max ms |"
      echo "|---|---:|---:|"
      declare -A median=()
      for entry in "${cases[@]}"; do
        name=${entry%%|*}
        # shellcheck disable=SC2086 # one number per word
        line=$(printf '%s\n' ${times[$name]} | sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f %.1f-%.1f", m, v[1], v[NR] }')
        median[$name]=${line%% *}
        echo "| $name | ${line%% *} | ${line#* } |"
      done
      awk -v warm="${median[template warm]}" -v warmWith="${median[WarmStart warm, manifest]}" -v cold="${median[template cold]}" \
        -v with="${median[WarmStart cold, manifest]}" -v tool="${median[WarmStart cold, manifest, fastload prefetch first]}" \
        -v then="${median[WarmStart cold, manifest, fastload prefetch to its end, then the start]}" 'BEGIN {
          printf "\ncold penalty left with the manifest, by medians, (cold with - warm) / (cold without - warm): %.2f in the process, %.2f with fastload prefetch first, %.2f with fastload prefetch to its end first (target at most 0.5)\n", (with - warm) / (cold - warm), (tool - warm) / (cold - warm), (then - warm) / (cold - warm)
          printf "cold without / cold with: %.2fx in the process, %.2fx with fastload prefetch first, %.2fx with fastload prefetch to its end first (targets: hdd at least 1.5x in the process, 2.5x with the tool)\n", cold / with, cold / tool, cold / then
          printf "warm cost of the manifest, WarmStart warm - template warm: %.1f ms (target at most 3 ms; too few rounds to tell: the warm pairs below measure it)\n", warmWith - warm
        }'
      echo "cold penalty left, paired by round: $(paired_penalty_left "$rounds_tsv") (target at most 0.5)"
      unset times median
    } | tee -a "$out"
  fi

  if [ "$disk" = ssd ] && [ "$warm_rounds" -gt 0 ]; then
    warm_pairs "$root" "$runtime" | tee -a "$out"
  fi

  if [ "$disk" = hdd ] || [ "$disk" = net ]; then
    "$slowdisk" down "$root" rm
    trap - EXIT
  fi
done
echo "== written to $out"
