#!/usr/bin/env bash
# Runs the CUDA unit tests under NVIDIA compute-sanitizer, in shards at once,
# and writes a JSON summary.  Needs a CUDA build of the tests (the README's
# CUDA configure) and a GPU.
#
#   scripts/run_sanitizers.sh -b build-cuda                  memcheck and racecheck
#   scripts/run_sanitizers.sh -b build-cuda -t memcheck -j 16 -T 900
#   scripts/run_sanitizers.sh -b build-cuda -f 'cuda.spgemm*' -t racecheck
#
#   -b DIR   the build folder holding unit_tests/spk_unit_tests (default build)
#   -t TOOL  memcheck, racecheck, synccheck or initcheck; repeatable (default:
#            memcheck and racecheck, one after the other)
#   -j N     shards run at once per tool, spread over the visible GPUs
#            (default: the number of cores)
#   -T S     time limit of one shard in seconds (default 1800); a shard cut
#            short is a failure in the summary
#   -f F     gtest filter (default cuda.*: the tests whose kernels run on the
#            GPU)
#   -k K     instrument only kernels whose name contains K (default spk: the
#            library's and its tests' kernels; Kokkos' own fills and copies and
#            Kokkos Kernels' kernels then run uninstrumented, which makes the
#            run several times shorter); -k '' instruments every kernel
#   -o DIR   where logs and sanitizers.json go (default DIR/sanitizers)
#
# spk's stream-ordered memory pool is off (SPK_MEMORY_POOL=0): every array is
# its own cudaMalloc, so an access past its end is one memcheck can see.
# Exit 0 when every shard passed its tests with no sanitizer error.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=build
tools=()
shards=$(nproc)
limit=1800
filter='cuda.*'
kernels=spk
out=
while getopts "b:t:j:T:f:k:o:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    t) tools+=("$OPTARG") ;;
    j) shards=$OPTARG ;;
    T) limit=$OPTARG ;;
    f) filter=$OPTARG ;;
    k) kernels=$OPTARG ;;
    o) out=$OPTARG ;;
    *) sed -n '2,28p' "$0"; exit 2 ;;
  esac
done
[ ${#tools[@]} -gt 0 ] || tools=(memcheck racecheck)
build=$(cd "$build" && pwd) || exit 2
out=${out:-$build/sanitizers}
tests=$build/unit_tests/spk_unit_tests
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
[ -x "$tests" ] || { echo "run_sanitizers.sh: no $tests (build the unit tests first)" >&2; exit 2; }
[ -x "$sanitizer" ] || { echo "run_sanitizers.sh: compute-sanitizer not found" >&2; exit 2; }
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -gt 0 ] || { echo "run_sanitizers.sh: no GPU (nvidia-smi -L lists none)" >&2; exit 2; }
mkdir -p "$out"

kernel_args=()
[ -n "$kernels" ] && kernel_args=(--kernel-name "kns=$kernels")
status=0
for tool in "${tools[@]}"; do
  echo "== $tool: $shards shards over $gpus GPU(s), filter $filter, kernels ${kernels:-all}"
  start=$SECONDS
  for i in $(seq 0 $((shards - 1))); do
    (
      cd "$build" || exit 1
      CUDA_VISIBLE_DEVICES=$((i % gpus)) GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
        OMP_NUM_THREADS=1 SPK_MEMORY_POOL=0 timeout "$limit" \
        "$sanitizer" --tool "$tool" --error-exitcode 99 --print-limit 100 "${kernel_args[@]}" \
        "$tests" --gtest_filter="$filter" >"$out/${tool}_$i.log" 2>&1
      echo $? >"$out/${tool}_$i.rc"
    ) &
  done
  wait
  echo "$((SECONDS - start))" >"$out/${tool}.seconds"
done

python3 - "$out" "$shards" "$filter" "$kernels" "$limit" "$*" "${tools[@]}" <<'EOF' || status=1
import json, pathlib, re, subprocess, sys
out, shards, filt, kernels, limit, args = sys.argv[1:7]
tools = sys.argv[7:]
shards = int(shards)
summary = {"command": "scripts/run_sanitizers.sh " + args, "filter": filt,
           "kernel_name_substring": kernels, "shard_limit_s": int(limit), "tools": {}}
try:
    summary["gpus"] = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                                     text=True).stdout.splitlines()
except OSError:
    pass
ok = True
for tool in tools:
    t = {"seconds": int(pathlib.Path(out, f"{tool}.seconds").read_text()), "shards": []}
    passed = failed = 0
    for i in range(shards):
        log = pathlib.Path(out, f"{tool}_{i}.log").read_text(errors="replace")
        rc = int(pathlib.Path(out, f"{tool}_{i}.rc").read_text())
        runs = len(re.findall(r"^\[ RUN      \]", log, re.M))
        done = len(re.findall(r"^\[       OK \]", log, re.M))
        fails = re.findall(r"^\[  FAILED  \] (\S+) \(", log, re.M)
        errors = re.findall(r"ERROR SUMMARY: (\d+) error", log) + \
                 re.findall(r"RACECHECK SUMMARY: (\d+) hazard", log)
        shard = {"shard": i, "rc": rc, "tests_run": runs, "tests_ok": done,
                 "failed": fails, "sanitizer_errors": sum(int(e) for e in errors),
                 "timed_out": rc == 124}
        t["shards"].append(shard)
        passed += done
        failed += len(fails)
        if rc != 0:
            ok = False
    t["tests_ok"] = passed
    t["tests_failed"] = failed
    t["sanitizer_errors"] = sum(s["sanitizer_errors"] for s in t["shards"])
    summary["tools"][tool] = t
    bad = [s["shard"] for s in t["shards"] if s["rc"] != 0]
    print(f"{tool}: {passed} tests ok, {failed} failed, {t['sanitizer_errors']} sanitizer "
          f"errors, {t['seconds']} s; shards not clean: {bad or 'none'}")
summary["clean"] = ok
pathlib.Path(out, "sanitizers.json").write_text(json.dumps(summary, indent=1) + "\n")
print(f"written {out}/sanitizers.json")
sys.exit(0 if ok else 1)
EOF
exit $status
