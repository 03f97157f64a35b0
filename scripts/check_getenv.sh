#!/usr/bin/env bash
# Source check (ctest "getenv_only_in_settings"): the environment is read in
# one place, the settings module (src/spk/core/spk_settings.hpp); everything
# else, the tool, tests, perf drivers and examples included, goes through
# spk::environment_variable() there.
#   check_getenv.sh [SOURCE_ROOT]
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
settings=src/spk/core/spk_settings.hpp
cd "$root" || exit 2
[ -f "$settings" ] || { echo "check_getenv: $settings not found under $root" >&2; exit 2; }
hits=$(grep -rnE '\bgetenv\b|secure_getenv|\benviron\b' \
         --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.cu' --include='*.in' \
         src tools perf_tests unit_tests examples | grep -v "^$settings:")
if [ -n "$hits" ]; then
  echo "getenv outside $settings (use spk::environment_variable and list the variable there):"
  echo "$hits"
  exit 1
fi
echo "check_getenv: only $settings reads the environment"
