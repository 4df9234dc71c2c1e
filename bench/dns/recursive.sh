#!/usr/bin/env bash
# dns.recursive beside unbound over test/dns/recursive-hierarchy.sh's servers, in a network namespace of
# its own (run as root: unshare -n bash bench/dns/recursive.sh [names]). Each resolver gets the same
# file of unique names under *.wild.plain.test twice: cold (every name new: the leaf zone is asked) and
# warm (every name cached). Prints queries per second (dnsperf) and CPU ms per query (/proc/<pid>/stat).
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
  "$root/node_modules/.bin/bun" "$root/src/main.ts" serve --data-dir "$dir/data" >"$dir/moat.log" 2>&1 &
moat=$!
for i in $(seq 1 100); do dig +short +time=1 +tries=1 -p 5301 @127.0.0.1 www.plain.test >/dev/null 2>&1 && break; sleep 0.2; done
for i in $(seq 1 "$n"); do echo "n$i.wild.plain.test A"; done >"$dir/names"
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
run() { # name port pid
  for phase in cold warm; do
    local c0 c1 out
    c0=$(cpu "$3")
    out=$(dnsperf -s 127.0.0.1 -p "$2" -d "$dir/names" -n 1 -c 4 -q ${Q:-50} -t 5 2>/dev/null)
    c1=$(cpu "$3")
    echo "$1 $phase: $(awk '/Queries per second/ {q = int($4)} /Queries lost/ {l = $3} /Response codes/ {$1 = $2 = ""; r = $0} END {printf "%d qps, %s lost,%s", q, l, r}' <<<"$out"), $(echo "scale=3; ($c1 - $c0) * 1000 / $hz / $n" | bc) ms CPU per query"
  done
}
run moat 5301 $moat
run unbound 5302 $ub
