# Shared by the command-line test scripts (sourced): `check` runs a command
# and compares its exit code and output with what is expected.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {  # check NAME EXPECTED_EXIT REGEX -- command...
  local name=$1 want=$2 regex=$3
  shift 4
  local out
  out=$("$@" 2>&1)
  local got=$?
  if [ "$got" != "$want" ] || ! grep -qE -- "$regex" <<<"$out"; then
    echo "FAIL $name (exit $got, want $want; output must match '$regex')"
    echo "$out" | sed 's/^/    /'
    fails=$((fails + 1))
  else
    echo "ok   $name"
  fi
}

# The checks that input claiming huge sizes allocates nothing run under a
# 2 GB virtual-memory cap.  A CUDA build cannot start under such a cap (the
# CUDA runtime reserves large virtual address ranges at initialisation), so
# there the same checks run uncapped: they still check the error message.
memcap="ulimit -v 2000000;"
if "$spk" --version 2>/dev/null | grep -q "spaces:.*cuda"; then memcap=""; fi
