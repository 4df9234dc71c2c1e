#!/usr/bin/env bash
# Builds signed zones for CNAME chains in $1 (a fresh directory), served by one nsd on 127.0.0.1:$2,
# which follows a chain across the zones it serves and so answers c.g0.test with all of it:
#   g0.test … g<$3-1>.test   c.gN CNAME c.g<N+1>, the last c A 192.0.2.1; every zone good
#   b0.test … b<$4-1>.test   the same chain, every zone's DNSKEY RRSIG broken (its keys never verify)
# Every zone and the root are ECDSA P-256 (13), NSEC, one key each; the root delegates each with its DS.
# Writes root.ds (the trust anchor) and nsd.conf. Needs ldns-keygen, ldns-signzone, ldns-key2ds, nsd.
set -euo pipefail
dir=$1 port=$2 good=$3 bad=$4
cd "$dir"
now=$(date -u +%s)
inc=$((now - 3600)) exp=$((now + 30 * 86400))
soa() { echo "\$ORIGIN $1"; echo "\$TTL 300"; echo "@ SOA ns.$1 admin.$1 1 3600 600 86400 300"; echo "@ NS ns.$1"; echo "ns A 127.0.0.1"; }
sign() { # zone-name file-stem
  local k
  k=$(ldns-keygen -a 13 -k "$1" 2>/dev/null)
  ldns-signzone -i $inc -e $exp -f "$2.signed" "$2.zone" "$k" >/dev/null
  ldns-key2ds -n -2 "$k.key" >"$2.ds"
}
zones=()
chain() { # prefix count broken
  local p=$1 n=$2 i z
  for ((i = 0; i < n; i++)); do
    z="$p$i.test"
    zones+=("$z")
    { soa "$z."; if ((i + 1 < n)); then echo "c CNAME c.$p$((i + 1)).test."; else echo "c A 192.0.2.1"; fi; } >"$z.zone"
    sign "$z." "$z"
    # the signature's first 16 base64 characters zeroed: the DNSKEY RRset never verifies
    [ "$3" = 1 ] && sed -i -E 's/^(\S+\s+[0-9]+\s+IN\s+RRSIG\s+DNSKEY\s+(\S+\s+){7})\S{16}/\1AAAAAAAAAAAAAAAA/' "$z.signed"
  done
  return 0
}
chain g "$good" 0
chain b "$bad" 1
{
  echo "\$TTL 300"
  echo ". SOA ns.root. admin.root. 1 3600 600 86400 300"
  echo ". NS ns.root."
  echo "ns.root. A 127.0.0.1"
  for z in "${zones[@]}"; do echo "$z. NS ns.$z."; echo "ns.$z. A 127.0.0.1"; cat "$z.ds"; done
} >root.zone
sign . root
{
  echo "server:"
  echo "  ip-address: 127.0.0.1"
  echo "  port: $port"
  echo "  zonesdir: \"$dir\""
  echo "  database: \"\""
  echo "  pidfile: \"$dir/nsd.pid\""
  echo "  xfrdfile: \"$dir/xfrd.state\""
  echo "  zonelistfile: \"$dir/zone.list\""
  echo "  username: \"\""
  echo "  server-count: 1"
  echo "  verbosity: 0"
  echo "remote-control:"
  echo "  control-enable: no"
  echo "zone:"
  echo "  name: ."
  echo "  zonefile: root.signed"
  for z in "${zones[@]}"; do echo "zone:"; echo "  name: $z."; echo "  zonefile: $z.signed"; done
} >nsd.conf
