#!/usr/bin/env bash
# Builds a private unsigned DNS hierarchy in $1 (a fresh directory) for test/dns/recursive.test.ts: one
# nsd per server role, each on its own loopback address and port 53, as real authorities listen, so it
# must run in a network namespace of its own (unshare -n). Writes <role>.conf per nsd and root.hints.
#   127.0.1.1  root          .      delegates test. (glue); the only server root.hints names
#   127.0.1.2  root2         .      the root's second server, known only from its NS set (RFC 8109 priming)
#   127.0.2.1  tld           test.  delegates the zones below; rl.test. back to itself (a referral loop)
#   127.0.3.1  leaf          plain, one, two, three, nsops, lame, cl1, cl2, v6, short .test; also on ::1
#   127.0.4.1  refuser       serves only refused.invalid.: REFUSED for lame.test (a lame server)
#   127.0.4.9  nothing       a silent server of lame.test
# Cases: www.plain.test (glue); www.gl.test (glueless: ns.nsops.test); a.one.test → b.two.test →
# c.three.test (a CNAME chain over three zones); big.plain.test TXT (> 1232 bytes: TC, then TCP);
# www.lame.test; a.cl1.test ↔ b.cl2.test (a CNAME loop); www.rl.test (a referral loop); www.cyc1.test
# (cyclic NS: ns.cyc2.test, whose zone's server is ns.cyc1.test, TsuNAME); nx.plain.test (NXDOMAIN);
# c.dn.plain.test (dn.plain.test DNAME three.test.); www.v6.test (glueless, its server's address AAAA ::1 only);
# *.short.test (delegated with an NS TTL of 1 s: serve-stale once the TLD's server is gone).
# The scripted servers the test runs itself: 127.0.5.1 (victim.test, counts), 127.0.6.1 (inject.test) and
# 127.0.7.1 (syn.test: DNAMEs sent without their CNAME, or with one that disagrees).
set -euo pipefail
dir=$1
cd "$dir"
soa() { local o=${1#.}; echo "\$ORIGIN $1"; echo "\$TTL 300"; echo "@ SOA ns.$o admin.$o 1 3600 600 86400 300"; }

{
  soa .
  echo "@ NS a.root."; echo "a.root. A 127.0.1.1"; echo "@ NS b.root."; echo "b.root. A 127.0.1.2"
  echo "test. NS ns1.test."; echo "ns1.test. A 127.0.2.1"
} >root.zone
{
  soa test.
  echo "@ NS ns1"
  echo "ns1 A 127.0.2.1"
  for z in plain one two three nsops cl1 cl2; do echo "$z NS ns.$z"; echo "ns.$z A 127.0.3.1"; done
  echo "gl NS ns.nsops.test." # glueless: the name's address is in nsops.test, not here
  echo "lame NS ns1.lame"; echo "ns1.lame A 127.0.4.1"
  echo "lame NS ns2.lame"; echo "ns2.lame A 127.0.4.9"
  echo "lame NS ns3.lame"; echo "ns3.lame A 127.0.3.1"
  echo "rl NS ns.rl"; echo "ns.rl A 127.0.2.1"
  echo "cyc1 NS ns.cyc2.test."; echo "cyc2 NS ns.cyc1.test."
  echo "inject NS ns.inject"; echo "ns.inject A 127.0.6.1"
  echo "victim NS ns.victim"; echo "ns.victim A 127.0.5.1"
  echo "syn NS ns.syn"; echo "ns.syn A 127.0.7.1"
  echo "v6 NS ns.v6.nsops.test." # glueless, and the name has an IPv6 address alone
  echo "short 1 NS ns.short"; echo "ns.short 1 A 127.0.3.1" # a delegation that expires in a second
  echo "nxns NS ns.nxns"; echo "ns.nxns A 127.0.3.1"
} >test.zone
big=$(for i in $(seq 1 12); do printf '"%0200d" ' "$i"; done)
{ soa plain.test.; echo "@ NS ns"; echo "ns A 127.0.3.1"; echo "www A 192.0.2.1"; echo "big TXT $big"; echo "*.wild A 192.0.2.9"; echo "dn DNAME three.test."; } >plain.test.zone
{ soa one.test.; echo "@ NS ns"; echo "ns A 127.0.3.1"; echo "a CNAME b.two.test."; } >one.test.zone
{ soa two.test.; echo "@ NS ns"; echo "ns A 127.0.3.1"; echo "b CNAME c.three.test."; } >two.test.zone
{ soa three.test.; echo "@ NS ns"; echo "ns A 127.0.3.1"; echo "c A 192.0.2.3"; } >three.test.zone
{ soa nsops.test.; echo "@ NS ns"; echo "ns A 127.0.3.1"; echo "ns.v6 AAAA ::1"; } >nsops.test.zone
{ soa short.test.; echo "@ NS ns"; echo "ns A 127.0.3.1"; echo "* A 192.0.2.7"; } >short.test.zone
{ soa v6.test.; echo "@ NS ns.v6.nsops.test."; echo "www A 192.0.2.6"; } >v6.test.zone
{ soa gl.test.; echo "@ NS ns.nsops.test."; echo "www A 192.0.2.4"; } >gl.test.zone
{ soa lame.test.; echo "@ NS ns3"; echo "ns3 A 127.0.3.1"; echo "www A 192.0.2.5"; } >lame.test.zone
{ soa cl1.test.; echo "@ NS ns"; echo "ns A 127.0.3.1"; echo "a CNAME b.cl2.test."; } >cl1.test.zone
{ soa cl2.test.; echo "@ NS ns"; echo "ns A 127.0.3.1"; echo "b CNAME a.cl1.test."; } >cl2.test.zone
# NXNS: a referral to many glueless name servers, each a different name in the victim's zone
{
  soa nxns.test.
  echo "@ NS ns"; echo "ns A 127.0.3.1"
  for i in $(seq 1 20); do echo "attack NS ns$i.victim.test."; done
} >nxns.test.zone
{ soa refused.invalid.; echo "@ NS ns"; echo "ns A 127.0.4.1"; } >refused.invalid.zone

nsdconf() { # role address[,address] zone...
  local role=$1 ip
  echo "server:"
  for ip in ${2//,/ }; do echo "  ip-address: $ip"; done
  shift 2
  echo "  port: 53"
  echo "  zonesdir: \"$dir\""
  echo "  database: \"\""
  echo "  pidfile: \"$dir/$role.pid\""
  echo "  xfrdfile: \"$dir/$role.xfrd\""
  echo "  zonelistfile: \"$dir/$role.zonelist\""
  echo "  username: \"\""
  echo "  server-count: 1"
  echo "  rrl-ratelimit: 0" # nsd limits answers to 200/s per client /24 by default: the benchmark sends more
  echo "  verbosity: 0"
  echo "remote-control:"
  echo "  control-enable: no"
  for z in "$@"; do
    f=${z%.}
    echo "zone:"
    echo "  name: $z"
    echo "  zonefile: ${f:-root}.zone"
  done
}
nsdconf root 127.0.1.1 . >root.conf
nsdconf root2 127.0.1.2 . >root2.conf
nsdconf tld 127.0.2.1 test. >tld.conf
nsdconf leaf 127.0.3.1,::1 plain.test. one.test. two.test. three.test. nsops.test. gl.test. lame.test. cl1.test. cl2.test. nxns.test. v6.test. short.test. >leaf.conf
nsdconf refuser 127.0.4.1 refused.invalid. >refuser.conf
printf '.  3600000 NS a.root.\na.root. 3600000 A 127.0.1.1\n' >root.hints
