#!/usr/bin/env bash
# Source check (ctest "no_kernels_in_public_headers"): the public entry
# headers of every package (src/spk/<package>/spk_*.hpp) check arguments,
# normalise inputs and forward to the package's impl/ headers; no kernel is
# launched there (Kokkos parallel patterns, TeamPolicy, or the distributed
# layer's row_parallel).
#   check_public_headers.sh [SOURCE_ROOT]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# Public headers allowed to launch kernels (none: every package's entry
# headers are thin).  A header added here needs a reason beside it.
allowed=()

pattern='\b(parallel_for|parallel_reduce|parallel_scan|TeamPolicy|row_parallel)\b'
status=0
shopt -s nullglob
headers=(src/spk/*/spk_*.hpp)
[ ${#headers[@]} -gt 0 ] || { echo "no public headers under $root/src/spk" >&2; exit 2; }
for h in "${headers[@]}"; do
  # (comment lines may name the patterns)
  hits=$(grep -nE "$pattern" "$h" | grep -vE '^[0-9]+:[[:space:]]*//')
  is_allowed=0
  for a in "${allowed[@]+"${allowed[@]}"}"; do [ "$a" = "$h" ] && is_allowed=1; done
  if [ -n "$hits" ] && [ $is_allowed = 0 ]; then
    echo "$h launches kernels (move them into its package's impl/):"
    echo "$hits"
    status=1
  elif [ -z "$hits" ] && [ $is_allowed = 1 ]; then
    echo "note: $h launches no kernel any more: remove it from the allow-list in $0"
  fi
done
[ $status = 0 ] && echo "check_public_headers: no kernel launch in ${#headers[@]} public headers" \
  "(${#allowed[@]} allow-listed)"
exit $status
