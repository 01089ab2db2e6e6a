#!/usr/bin/env bash
# The full cold-cache benchmark suite, end to end: machine description, fio device baseline, every scenario
# (with fio on the same files in the table), Markdown/CSV/JSON exports, and the charts.
#
# Estimated time on the project VM (2 cores, a virtio disk that behaves like an SSD; fio: 905 MB/s sequential), quiet machine: about 25 minutes,
# at most 35. The first run also generates about 5 GB of data (about 2 minutes); later runs reuse it.
# Breakdown: many files 95 cases (~15 min), large file 22 (~3 min), one vs many 12 and read size 14 (~2 min),
# fio device baseline 30 s, builds ~1.5 min, fio per workload ~1 min, charts 15 s.
#
# Output, under benchmarks/results/ (gitignored, replaced on every run):
#   machine.txt                 cores, memory, device as reported, SDK, fio version, date
#   fio-device/*.json           the device alone: sequential 1 MiB, random 4 KiB at depth 1 and 32
#   bdn/results/*-report.*      BenchmarkDotNet tables: GitHub Markdown, CSV, JSON (the lead pastes the .md)
#   fio/*.json                  raw fio output for each workload's "vs fio" column
#   charts/*.png                charts drawn from the CSV by benchmarks/FastLoad.Charts (ScottPlot; only the .NET SDK)
#
# Settings (environment): FASTLOAD_BENCH_DATA (data folder, default /tmp/fastload-bench), FASTLOAD_BENCH_ITERATIONS
# (measured iterations per case, default 3 here), FASTLOAD_BENCH_SCALE, FASTLOAD_BENCH_GROUPS, FASTLOAD_BENCH_FOLDER
# (see docs/benchmarks.md). Arguments go to BenchmarkDotNet and replace the default filter, which is issue 3's four
# scenario classes; --filter '*' adds every other class in the project (not counted in the 35 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

results=$PWD/benchmarks/results
data=${FASTLOAD_BENCH_DATA:-/tmp/fastload-bench}
export FASTLOAD_BENCH_DATA=$data
export FASTLOAD_BENCH_ITERATIONS=${FASTLOAD_BENCH_ITERATIONS:-3}
export FASTLOAD_FIO_OUTPUT=$results/fio
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
started=$(date +%s)
filter=("$@")
[ ${#filter[@]} -eq 0 ] && filter=(--filter '*.ManyFilesBenchmarks.*' '*.LargeFileBenchmarks.*' '*.OneVsManyBenchmarks.*' '*.ReadSizeBenchmarks.*')

rm -rf "$results"
mkdir -p "$results" "$data"

echo "== machine"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "kernel: $(uname -srm)"
  echo "cores: $(nproc)"
  lscpu | grep -E '^Model name' || true
  free -h | sed -n 1,2p
  echo "device of $data:"
  lsblk -d -o NAME,SIZE,ROTA,MODEL "$(df --output=source "$data" | tail -n 1)" 2>/dev/null || df -h "$data"
  echo "dotnet: $(dotnet --version)"
  if command -v fio >/dev/null; then echo "fio: $(fio --version)"; else echo "fio: not installed"; fi
} | tee "$results/machine.txt"

if command -v fio >/dev/null; then
  echo "== fio device baseline (1 GiB file, O_DIRECT, io_uring)"
  mkdir -p "$results/fio-device"
  probe=$data/fio-device.bin
  run_fio() {
    fio --name="$1" --filename="$probe" --size=1G --rw="$2" --bs="$3" --iodepth="$4" --direct=1 --ioengine=io_uring \
        --runtime=10 --time_based --output-format=json --output="$results/fio-device/$1.json" >/dev/null
    python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['jobs'][0]['read']; print(f'{sys.argv[2]}: {r[\"bw_bytes\"]/1e6:.0f} MB/s, {r[\"iops\"]:.0f} IOPS')" \
        "$results/fio-device/$1.json" "$1" | tee -a "$results/machine.txt"
  }
  run_fio seq-1m-qd8 read 1M 8
  run_fio rand-4k-qd1 randread 4k 1
  run_fio rand-4k-qd32 randread 4k 32
else
  echo "fio is not installed: no device baseline, and the suite's fio columns will say \"no fio\"." | tee -a "$results/machine.txt"
fi

echo "== benchmarks"
dotnet build benchmarks/FastLoad.Benchmarks -c Release -nologo -v q
status=0
dotnet run --no-build -c Release --project benchmarks/FastLoad.Benchmarks -- "${filter[@]}" --artifacts "$results/bdn" || status=$?

echo "== charts"
if ! dotnet run -c Release --project benchmarks/FastLoad.Charts -- "$results/bdn/results" "$results/charts"; then
  echo "charts failed" >&2
  [ "$status" -ne 0 ] || status=1
fi

elapsed=$(( $(date +%s) - started ))
echo "== done in $((elapsed / 60)) min $((elapsed % 60)) s; results in $results (benchmarks exit code $status)"
exit "$status"
