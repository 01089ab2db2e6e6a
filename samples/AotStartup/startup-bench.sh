#!/usr/bin/env bash
# Fresh-process, cold start-up benchmark of the AotStartup builds (see README.md): for each set, ROUNDS rounds; in
# each round every build runs once, in a new process, after its files were evicted by a separate process. Prints the
# median of loadMs and sinceMainMs per build and set, and the wall time of the whole process (fork to exit).
#
#   startup-bench.sh ROUNDS SETS_DIR BUILD...      BUILD = label=command (the command gets "<mode> <folder>")
#   e.g. startup-bench.sh 9 /tmp/sets 'loop-jit=dotnet /tmp/aotstartup/jit/AotStartup.dll loop' \
#                                      'aot=/tmp/aotstartup/aot/AotStartup fastload'
# SETS_DIR is created when missing: sets of 10, 100 and 1,000 files (SET_SIZES), 1-64 KiB log-uniform, seed 42.
# EVICT is the command that evicts a set (default: the NativeAOT build's evict mode under /tmp/aotstartup/aot).
set -euo pipefail
rounds=$1 sets=$2; shift 2
evict=${EVICT:-/tmp/aotstartup/aot/AotStartup evict}

if [[ ! -d $sets ]]; then
  python3 - "$sets" ${SET_SIZES:-10 100 1000} <<'PY'
import math, os, random, sys
root, counts = sys.argv[1], [int(c) for c in sys.argv[2:]]
for count in counts:
    rng = random.Random(42)
    folder = os.path.join(root, f"{count:05d}")
    os.makedirs(folder)
    for i in range(count):
        size = int(math.exp(rng.uniform(math.log(1024), math.log(64 * 1024))))
        with open(os.path.join(folder, f"f{i:06d}.bin"), "wb") as f:
            f.write(rng.randbytes(size))
            f.flush()
            os.fsync(f.fileno())
PY
fi
results=$(mktemp)
trap 'rm -f "$results"' EXIT

for set in "$sets"/*/; do
  set=${set%/}
  for ((round = 1; round <= rounds; round++)); do
    for build in "$@"; do
      label=${build%%=*} command=${build#*=}
      $evict "$set"
      start=$(date +%s%N)
      # The timed process writes to a file: nothing else runs beside it.
      $command "$set" > "$results.line"
      end=$(date +%s%N)
      printf '%s %s %s %s\n' "$(basename "$set")" "$label" "$(( (end - start) / 1000 ))" "$(cat "$results.line")" >> "$results"
    done
  done
done

python3 - "$results" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, label, wall_us, payload = line.split(" ", 3)
    r = json.loads(payload)
    rows.setdefault((name, label), []).append((r["loadMs"], r["sinceMainMs"], int(wall_us) / 1000, r["files"], r["bytes"]))
def spread(xs):
    xs = sorted(xs); return f"{statistics.median(xs):8.2f} ({xs[0]:.1f}-{xs[-1]:.1f})"
print(f"{'set':<10} {'build':<16} {'files':>6} {'bytes':>10}  {'load ms (min-max)':>24}  {'since Main ms':>24}  {'process ms':>24}")
for (name, label), v in rows.items():
    print(f"{name:<10} {label:<16} {v[0][3]:>6} {v[0][4]:>10}  {spread([x[0] for x in v]):>24}  {spread([x[1] for x in v]):>24}  {spread([x[2] for x in v]):>24}")
PY
