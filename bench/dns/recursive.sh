#!/usr/bin/env bash
# dns.recursive beside unbound over test/dns/recursive-hierarchy.sh's servers, in a network namespace of
# its own (run as root: unshare -n bash bench/dns/recursive.sh [names]). Each resolver gets the same
# file of unique names under *.wild.plain.test twice: cold (every name new: the leaf zone is asked) and
# warm (every name cached). Prints queries per second (dnsperf) and CPU ms per query (/proc/<pid>/stat).
# PROFILE=dir writes Moat's CPU profile there as markdown (bun --cpu-prof-md) when it exits; PHASES="cold"
# runs the cold phase alone (a profile of the cold path only). WARMUP=n resolves n other new names first,
# uncounted, so the cold phase measures a resolver that has run a while (Moat's JIT compiled, both
# resolvers' delegations and server round-trip times known) rather than one just started. With perf (Debian's
# linux-perf) it also counts the system calls and the binds (one per new socket) per query: figures a loaded
# machine does not blur, as it does CPU time.
set -euo pipefail
n=${1:-3000}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$dir"' EXIT
ip link set lo up
bash "$root/test/dns/recursive-hierarchy.sh" "$dir"
for c in root root2 tld leaf; do nsd -d -c "$dir/$c.conf" 2>/dev/null & done
cat >"$dir/unbound.conf" <<CONF
server:
  interface: 127.0.0.1
  port: 5302
  do-daemonize: no
  username: ""
  chroot: ""
  directory: "$dir"
  pidfile: ""
  use-syslog: no
  verbosity: 0
  do-ip6: no
  num-threads: 1
  do-not-query-localhost: no
  local-zone: "test." nodefault
  root-hints: "$dir/root.hints"
  module-config: "iterator"
  qname-minimisation: yes
  access-control: 127.0.0.0/8 allow
remote-control:
  control-enable: no
CONF
unbound -d -c "$dir/unbound.conf" 2>/dev/null &
ub=$!
mkdir "$dir/data"
FTLCONF_dns_recursive_active=true FTLCONF_dns_recursive_rootHints="$dir/root.hints" FTLCONF_dns_upstreams= \
  FTLCONF_dns_port=5301 FTLCONF_webserver_port=127.0.0.1:18099 FTLCONF_dns_tls_port=0 FTLCONF_dns_queryLogging=false FTLCONF_dns_rateLimit_count=0 \
  "$root/node_modules/.bin/bun" ${PROFILE:+--cpu-prof-md --cpu-prof-dir="$PROFILE"} "$root/src/main.ts" serve --data-dir "$dir/data" >"$dir/moat.log" 2>&1 &
moat=$!
for i in $(seq 1 100); do dig +short +time=1 +tries=1 -p 5301 @127.0.0.1 www.plain.test >/dev/null 2>&1 && break; sleep 0.2; done
for i in $(seq 1 "$n"); do echo "n$i.wild.plain.test A"; done >"$dir/names"
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
run() { # name port pid
  if [ "${WARMUP:-0}" -gt 0 ]; then
    for i in $(seq 1 "$WARMUP"); do echo "w$i.wild.plain.test A"; done >"$dir/warmup"
    dnsperf -s 127.0.0.1 -p "$2" -d "$dir/warmup" -n 1 -c 4 -q ${Q:-50} -t 5 >/dev/null 2>&1
  fi
  for phase in ${PHASES:-cold warm}; do
    local c0 c1 out pp="" calls=""
    if command -v perf >/dev/null; then
      perf stat -x, -e raw_syscalls:sys_enter,syscalls:sys_enter_bind -p "$3" -o "$dir/perf" >/dev/null 2>&1 &
      pp=$!
      sleep 0.3 # perf attached
    fi
    c0=$(cpu "$3")
    out=$(dnsperf -s 127.0.0.1 -p "$2" -d "$dir/names" -n 1 -c 4 -q ${Q:-50} -t 5 2>/dev/null)
    c1=$(cpu "$3")
    if [ -n "$pp" ]; then
      kill -INT "$pp" && wait "$pp" || true
      calls=$(awk -F, -v n="$n" '/raw_syscalls/ {a = $1} /sys_enter_bind/ {b = $1} END {printf ", %.1f system calls, %.3f binds", a / n, b / n}' "$dir/perf")
    fi
    echo "$1 $phase: $(awk '/Queries per second/ {q = int($4)} /Queries lost/ {l = $3} /Response codes/ {$1 = $2 = ""; r = $0} END {printf "%d qps, %s lost,%s", q, l, r}' <<<"$out"), $(echo "scale=3; ($c1 - $c0) * 1000 / $hz / $n" | bc) ms CPU$calls per query"
  done
}
run moat 5301 $moat
if [ -n "${PROFILE:-}" ]; then kill -TERM $moat && wait $moat || true; fi
run unbound 5302 $ub
