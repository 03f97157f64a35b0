# Steps shared by the single-GPU SpGEMM device runs (docs/data/spgemm_*/device_run.sh):
# source it from the repository root on the device machine, then call
#   spk_dev_setup DIR [BINARY ...]     unpack DIR's binaries, results to a temporary $OUT
#   spk_dev_unit_tests [TIMEOUT] [FILE]  the CUDA unit tests, when DIR has them
#   spk_dev_suite NAME BINARY [ENV=VALUE ...]   the suite, as NAME.json / NAME.log
#   spk_dev_ab OLD BINARY_OLD [ROUNDS]  OLD<r> and new<r> (perf_spgemm) in turn, r = 1..ROUNDS
#   spk_dev_check [ENV=VALUE ...]      --check on the suite without rmat:18:8
#   spk_dev_geomeans FILE.json ...     per suite run: geometric mean and lowest of cuSPARSE / spk
#   spk_dev_logs PREFIX "OPTIONS" "BINARY ..." MATRIX ...   each binary on each matrix, logged
#   spk_dev_ncu PREFIX REGEX LAUNCHES MATRIX [ENV=VALUE ...]   ncu of matching kernels
#   spk_dev_finish [TARBALL]           pack the results into the tool's $OUT
#   spk_dev_ab_call DIR MATRIX ...     one A/B call: DIR's perf_base against perf_spgemm
#                                      (unit tests, ROUNDS rounds, --check, kernels on MATRIX ...)
# DIR holds the carried binaries (gzipped or not) and m/, the real matrices.
# NCU_SECTIONS and NCU_SOURCE=0|1 (default 1: also the SASS source counters)
# change what spk_dev_ncu records; CHECK_TIMEOUT (default 150 s) bounds the check.

# The binaries of DIR made runnable; D, LD_LIBRARY_PATH and SPK_MATRIX_DIR set.
spk_dev_unpack() {
  D=$1
  shift
  for b in "$@"; do
    if [ -f "$D/$b.gz" ] && ! gunzip -f "$D/$b.gz"; then
      echo "spk_dev_unpack: $D/$b.gz did not unpack (truncated carry?)" >&2
      return 1
    fi
    chmod +x "$D/$b" 2>/dev/null
  done
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
  export SPK_MATRIX_DIR=$D/m
}

# spk_dev_unpack, then results in a temporary folder (the tool's $OUT keeps
# only 8 files: spk_dev_finish packs them), the GPU's name, and the suite:
# M (generated matrices and DIR's real ones) and M2 (M without rmat:18:8,
# whose serial reference takes minutes).
spk_dev_setup() {
  spk_dev_unpack "$@" || return 1
  FINAL=$OUT
  OUT=$(mktemp -d)
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$OUT/gpu.txt"
  M="poisson2d:1000 poisson3d:100 random:1000000:1000000:8 rmat:16:16 rmat:18:8"
  for f in "$D"/m/*.mtx.gz; do M="$M $f"; done
  M2=$(echo $M | sed 's/rmat:18:8//')
}

spk_dev_unit_tests() {
  local t=${1:-120} f=${2:-unit_tests_cuda.txt}
  [ -x "$D/spk_unit_tests" ] || return 0
  timeout "$t" "$D/spk_unit_tests" --gtest_filter='cuda.*' >"$OUT/$f" 2>&1
  echo "unit tests rc=$?"
  tail -4 "$OUT/$f"
}

spk_dev_suite() {
  local name=$1 bin=$2
  shift 2
  env "$@" timeout 100 "$D/$bin" --space cuda --no-baselines --json "$OUT/$name.json" $M \
    >"$OUT/$name.log" 2>&1
  echo "$name rc=$?"
}

spk_dev_ab() {
  local old=$1 bin=$2 r
  for r in $(seq 1 "${3:-2}"); do
    spk_dev_suite "$old$r" "$bin"
    spk_dev_suite "new$r" perf_spgemm
  done
}

# Prints the number of products that do not match the reference, then the
# number checked.
spk_dev_check() {
  env "$@" timeout "${CHECK_TIMEOUT:-150}" "$D/perf_spgemm" --space cuda --no-baselines --check \
    --json "$OUT/check.json" $M2 >"$OUT/check.log" 2>&1
  echo "check rc=$?"
  grep "^# check" "$OUT/check.log" | grep -vc matches
  grep -c "^# check" "$OUT/check.log"
}

# ncu of the first LAUNCHES kernels whose demangled name matches REGEX in one
# product of MATRIX: PREFIX_details.txt and (NCU_SOURCE=1) PREFIX_source.csv.gz.
spk_dev_ncu() {
  local prefix=$1 regex=$2 launches=$3 matrix=$4 w sections
  shift 4
  w=$(mktemp -d)
  sections=${NCU_SECTIONS:-SpeedOfLight MemoryWorkloadAnalysis WarpStateStats SourceCounters Occupancy LaunchStats}
  env "$@" timeout 150 ncu --clock-control none --kernel-name-base demangled -k "regex:$regex" \
    --launch-count "$launches" $(for s in $sections; do echo --section $s; done) -o "$w/rep" \
    "$D/perf_spgemm" --space cuda --no-baselines --warmup 0 --repeat 1 "$matrix" \
    >"$OUT/ncu_run.log" 2>&1
  echo "ncu rc=$?"
  ncu --import "$w/rep.ncu-rep" --page details >"$OUT/${prefix}_details.txt" 2>&1
  if [ "${NCU_SOURCE:-1}" = 1 ]; then
    ncu --import "$w/rep.ncu-rep" --page source --csv --print-source sass \
      >"$OUT/${prefix}_source.csv" 2>&1
    gzip "$OUT/${prefix}_source.csv"
  fi
}

# PREFIX_BINARY_MATRIX.log for each MATRIX (a generated name or a file) and
# each BINARY, with perf_spgemm's OPTIONS (e.g. "--kernels --repeat 10").
spk_dev_logs() {
  local prefix=$1 opts=$2 bins=$3 b f n
  shift 3
  for f in "$@"; do
    n=$(basename "$f" .mtx.gz)
    for b in $bins; do
      timeout 60 "$D/$b" --space cuda --no-baselines $opts "$f" >"$OUT/${prefix}_${b}_$n.log" 2>&1
      echo "$b $n rc=$?"
    done
  done
}

spk_dev_geomeans() {
  local f
  for f in "$@"; do
    python3 - "$f" <<'PY'
import json, math, sys
by = {}
for r in json.load(open(sys.argv[1]))["records"]:
    by.setdefault(r["matrix"], {})[r["impl"]] = r["ms"]
rs = [v["cusparse-spgemm"] / v["spk"] for v in by.values() if "spk" in v and "cusparse-spgemm" in v]
print(sys.argv[1].split("/")[-1], "geomean %.3f" % math.exp(sum(map(math.log, rs)) / len(rs)),
      "min %.2f" % min(rs), "n", len(rs))
PY
  done
}

spk_dev_finish() {
  (cd "$OUT" && tar czf "$FINAL/${1:-run.tgz}" . && ls -la "$OUT")
}

# A whole A/B call: the CUDA unit tests of DIR's spk_unit_tests, ROUNDS
# (default 3) suite rounds of perf_base and perf_spgemm in turn, --check,
# fenced per-kernel times of both on each MATRIX, the geometric means against
# cuSPARSE, all packed into ab.tgz.
spk_dev_ab_call() {
  local dir=$1
  shift
  spk_dev_setup "$dir" perf_base perf_spgemm spk_unit_tests
  spk_dev_unit_tests 300 unit_tests_cuda.txt
  spk_dev_ab base perf_base ${ROUNDS:-3}
  spk_dev_check
  spk_dev_logs kernels "--kernels --repeat 10" "perf_base perf_spgemm" "$@"
  spk_dev_geomeans $OUT/base*.json $OUT/new*.json
  spk_dev_finish ab.tgz
}
