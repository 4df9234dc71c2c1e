#!/usr/bin/env bash
# Builds a private signed DNS hierarchy in $1 (a fresh directory) for test/dns/dnssec.test.ts, served by
# one nsd on 127.0.0.1:$2 that is authoritative for every zone (so unbound finds each through the root):
#   .             ECDSA P-256 (13), NSEC; delegates every zone below, with DS where it should have one
#   secure.test   Ed25519 (15), NSEC: www, a wildcard, a CNAME
#   nsec3.test    RSA/SHA-256 (8), NSEC3 with salt, 1 iteration
#   p384.test     ECDSA P-384 (14), NSEC3 opt-out, with an unsigned delegation (sub.p384.test) in an opt-out span
#   insecure.test unsigned, no DS
#   expired.test  signatures that expired in 2020
#   badds.test    its DS in the root names a key the zone does not have
#   nosig.test    www's RRSIG removed
#   notyet.test   signatures valid from ten days on
#   unknownalg.test its DS in the root has algorithm 253 only (private): insecure, as RFC 4035 §5.2 says
#   badnsec.test  its NSEC records removed: NXDOMAIN and NODATA come without proof
#   trap.test     KeyTrap: the DNSKEYs in trap.keys beside its own, www's RRSIG replaced by those in trap.sigs
#                 (both written by the test; INC and EXP in trap.sigs become the signing window)
# Writes root.ds (the trust anchor) and nsd.conf. Needs ldns-keygen, ldns-signzone, ldns-key2ds, nsd.
set -euo pipefail
dir=$1
port=$2
cd "$dir"
soa() { echo "\$ORIGIN $1"; echo "\$TTL 300"; echo "@ SOA ns.$1 admin.$1 1 3600 600 86400 300"; echo "@ NS ns.$1"; echo "ns A 127.0.0.1"; }
key() { ldns-keygen -a "$2" ${3:+-b $3} $4 "$1" 2>/dev/null; }
sign() { # zone-name algorithm [bits] [extra signzone args...]
  local z=$1 a=$2 b=${3:-} f=${1%.} k z2
  shift 3
  k=$(key "$z" "$a" "$b" -k)
  z2=$(key "$z" "$a" "$b" "")
  ldns-signzone "$@" -o "$z" -f "$f.signed" "$f.zone" "$k" "$z2" >/dev/null
  ldns-key2ds -n -2 "$k.key" >"$f.ds"
}
now=$(date -u +%s)
inc=$((now - 3600))
exp=$((now + 30 * 86400))

{ soa secure.test.; echo "www A 192.0.2.1"; echo "*.wild A 192.0.2.2"; echo "alias CNAME www"; echo "txt TXT hello"; } >secure.test.zone
sign secure.test. 15 "" -i $inc -e $exp
{ soa nsec3.test.; echo "www A 192.0.2.3"; echo "*.wild A 192.0.2.10"; } >nsec3.test.zone
sign nsec3.test. 8 1024 -n -s 0a0b -t 1 -i $inc -e $exp
{ soa p384.test.; echo "www A 192.0.2.4"; echo "sub NS ns.sub"; echo "ns.sub A 127.0.0.1"; } >p384.test.zone
sign p384.test. 14 "" -n -p -t 0 -i $inc -e $exp
{ soa sub.p384.test.; echo "www A 192.0.2.15"; } >sub.p384.test.zone
cp sub.p384.test.zone sub.p384.test.signed
{ soa insecure.test.; echo "www A 192.0.2.5"; } >insecure.test.zone
cp insecure.test.zone insecure.test.signed
{ soa expired.test.; echo "www A 192.0.2.6"; } >expired.test.zone
sign expired.test. 13 "" -i 20200101 -e 20200201
{ soa badds.test.; echo "www A 192.0.2.7"; } >badds.test.zone
sign badds.test. 13 "" -i $inc -e $exp
other=$(key badds.test. 13 "" -k)
ldns-key2ds -n -2 "$other.key" >badds.test.ds
{ soa nosig.test.; echo "www A 192.0.2.8"; echo "other A 192.0.2.9"; } >nosig.test.zone
sign nosig.test. 13 "" -i $inc -e $exp
grep -v -P '^www\.nosig\.test\.\s+\d+\s+IN\s+RRSIG\s+A ' nosig.test.signed >nosig.tmp && mv nosig.tmp nosig.test.signed
{ soa notyet.test.; echo "www A 192.0.2.13"; } >notyet.test.zone
sign notyet.test. 13 "" -i $((now + 10 * 86400)) -e $((now + 40 * 86400))
{ soa unknownalg.test.; echo "www A 192.0.2.14"; } >unknownalg.test.zone
sign unknownalg.test. 13 "" -i $inc -e $exp
echo "unknownalg.test. 300 IN DS 12345 253 2 $(printf '%064d' 0)" >unknownalg.test.ds
{ soa badnsec.test.; echo "www A 192.0.2.11"; } >badnsec.test.zone
sign badnsec.test. 13 "" -i $inc -e $exp
grep -v -P '\sNSEC\s|\sRRSIG\s+NSEC\s' badnsec.test.signed >badnsec.tmp && mv badnsec.tmp badnsec.test.signed
{ soa trap.test.; echo "www A 192.0.2.12"; cat trap.keys; } >trap.test.zone
sign trap.test. 8 1024 -i $inc -e $exp
grep -v -P '^www\.trap\.test\.\s+\d+\s+IN\s+RRSIG\s+A ' trap.test.signed >trap.tmp
sed -e "s/INC/$(date -u -d @$inc +%Y%m%d%H%M%S)/" -e "s/EXP/$(date -u -d @$exp +%Y%m%d%H%M%S)/" trap.sigs >>trap.tmp
mv trap.tmp trap.test.signed

{
  echo "\$TTL 300"
  echo ". SOA ns.root. admin.root. 1 3600 600 86400 300"
  echo ". NS ns.root."
  echo "ns.root. A 127.0.0.1"
  for z in secure nsec3 p384 insecure expired badds nosig badnsec trap notyet unknownalg; do
    echo "$z.test. NS ns.$z.test."
    echo "ns.$z.test. A 127.0.0.1"
    [ -f "$z.test.ds" ] && cat "$z.test.ds"
  done
} >root.zone
k=$(key . 13 "" -k)
z2=$(key . 13 "" "")
ldns-signzone -i $inc -e $exp -f root.signed root.zone "$k" "$z2" >/dev/null
ldns-key2ds -n -2 "$k.key" >root.ds

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
  for z in secure nsec3 p384 sub.p384 insecure expired badds nosig badnsec trap notyet unknownalg; do
    echo "zone:"
    echo "  name: $z.test."
    echo "  zonefile: $z.test.signed"
  done
} >nsd.conf
