// The private signed hierarchy of dnssec-hierarchy.sh, and unbound configurations over it: used by
// test/dns/dnssec.test.ts and bench/dns/dnssec.ts.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TRAP_TAG, trapKeys, trapRrset } from "../../src/dns/dnssec/testdata/keytrap.ts";

const ZONES = [
  "secure",
  "nsec3",
  "p384",
  "sub.p384",
  "insecure",
  "expired",
  "badds",
  "nosig",
  "badnsec",
  "trap",
  "notyet",
  "unknownalg",
];

/**
 * The KeyTrap zone's extra records for dnssec-hierarchy.sh: `keys` DNSKEYs with one key tag and `sigs`
 * failing RRSIGs over www.trap.test with that tag, keys × sigs RSA-4096 checks for a validator without limits.
 */
export function writeTrap(dir: string, keys: number, sigs: number): void {
  const now = Math.floor(Date.now() / 1000);
  const k = trapKeys(keys).map(
    (x) => `trap.test. 300 IN DNSKEY 256 3 8 ${Buffer.from(x.rdata.subarray(4)).toString("base64")}`,
  );
  // the signature follows the 18 fixed bytes and the signer name (trap.test, 11 bytes)
  const s = trapRrset(sigs, now).sigs.map(
    (r) =>
      `www.trap.test. 300 IN RRSIG A 8 3 300 EXP INC ${TRAP_TAG} trap.test. ${Buffer.from(r.rdata.subarray(18 + 11)).toString("base64")}`,
  );
  writeFileSync(join(dir, "trap.keys"), `${k.join("\n")}\n`);
  writeFileSync(join(dir, "trap.sigs"), `${s.join("\n")}\n`);
}

/** Builds the zones in `dir` (nsd.conf for 127.0.0.1:`nsdPort` included) and returns the root's DS line, the trust anchor. */
export function buildHierarchy(dir: string, nsdPort: number): string {
  // the KeyTrap zone's extra keys and signatures: none unless the caller wrote them
  for (const f of ["trap.keys", "trap.sigs"]) if (!existsSync(join(dir, f))) writeFileSync(join(dir, f), "");
  const built = Bun.spawnSync(["bash", join(import.meta.dir, "dnssec-hierarchy.sh"), dir, String(nsdPort)]);
  if (built.exitCode !== 0) throw new Error(`hierarchy: ${built.stderr.toString()}`);
  return readFileSync(join(dir, "root.ds"), "utf8").trim().replace(/\s+/g, " ");
}

/** unbound on `port` over the hierarchy: validating with `anchor` (a DS line), or a plain iterator when it is null. */
export function unboundConf(dir: string, nsdPort: number, port: number, anchor: string | null): string {
  const validating = anchor !== null;
  const lines = [
    "server:",
    "  interface: 127.0.0.1",
    `  port: ${port}`,
    "  do-daemonize: no",
    '  username: ""',
    '  chroot: ""',
    `  directory: "${dir}"`,
    '  pidfile: ""',
    "  use-syslog: no",
    "  verbosity: 0",
    "  do-ip6: no",
    // the private hierarchy lives on loopback, and test. is one of unbound's default local zones
    "  do-not-query-localhost: no",
    '  local-zone: "test." nodefault',
    "  qname-minimisation: no",
    "  trust-anchor-signaling: no",
    "  root-key-sentinel: no",
    "  access-control: 127.0.0.0/8 allow",
    validating ? '  module-config: "validator iterator"' : '  module-config: "iterator"',
    ...(validating ? [`  trust-anchor: "${anchor}"`] : []),
    "remote-control:",
    "  control-enable: no",
    // every zone is on the one nsd and its port: without a stub per zone, unbound would ask the NS names on port 53
    ...[".", ...ZONES.map((z) => `${z}.test.`)].flatMap((z) => [
      "stub-zone:",
      `  name: "${z}"`,
      `  stub-addr: 127.0.0.1@${nsdPort}`,
    ]),
  ];
  return `${lines.join("\n")}\n`;
}
