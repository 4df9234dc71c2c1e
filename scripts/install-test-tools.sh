#!/usr/bin/env bash
# The Debian tools the tests use as real peers and clients (.ci/packages.txt: a command, then the
# package that brings it). Run before any test by `npm test` (its pretest) and by .ci/run: as root it
# installs what is missing; otherwise, or when that fails, it names in one line what to install and
# exits 1, so no test starts without its peers. MOAT_TEST_TOOLS=warn (.ci/run) prints that line as a
# warning and exits 0; MOAT_TEST_TOOLS_LIST reads another list (the test of this script).
set -uo pipefail
cd "$(dirname "$0")/.."
list=${MOAT_TEST_TOOLS_LIST:-.ci/packages.txt}

missing() {
  need=()
  while read -r cmd pkg; do
    [ -z "$cmd" ] || [ "${cmd#\#}" != "$cmd" ] && continue
    command -v "$cmd" >/dev/null 2>&1 || [ -e "$cmd" ] || need+=("$pkg")
  done <"$list"
}

missing
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing the Debian packages the tests use: ${need[*]}"
  apt-get update -qq >/dev/null 2>&1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1
  missing
  [ ${#need[@]} -eq 0 ] && exit 0
fi
line="the tests need these Debian packages: ${need[*]} (as root: apt-get install ${need[*]}; or run npm test as root)"
if [ "${MOAT_TEST_TOOLS:-}" = warn ]; then
  echo "warning: $line"
  exit 0
fi
echo "$line" >&2
exit 1
