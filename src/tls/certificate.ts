// Certificates made by Moat itself, without openssl on the appliance: an authority (what a phone or
// laptop is told to trust) and a server certificate it signs for pi.hole, the host name and their
// subdomains (DoT client IDs ride in the name: <id>.pi.hole), plus the machine's addresses. ECDSA
// P-256 keys from node:crypto; the X.509 structure (RFC 5280) is written by der.ts.
import { createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from "node:crypto";
import { isIP } from "node:net";
import { bits, bool, tlv, explicit, implicit, octets, oid, seq, set, time, uint, utf8, type Der } from "./der.ts";

const ECDSA_SHA256 = "1.2.840.10045.4.3.2";
const COMMON_NAME = "2.5.4.3";
const ORGANIZATION = "2.5.4.10";

export interface Issued {
  keyPem: string;
  certPem: string;
}

function name(cn: string): Der {
  return seq(set(seq(oid(ORGANIZATION), utf8("Moat"))), set(seq(oid(COMMON_NAME), utf8(cn))));
}

function extension(id: string, critical: boolean, value: Der): Der {
  return critical ? seq(oid(id), bool(true), octets(value)) : seq(oid(id), octets(value));
}

function ipBytes(ip: string): Uint8Array {
  if (isIP(ip) === 4) return Uint8Array.from(ip.split(".").map(Number));
  const [head, tail = ""] = ip.split("::") as [string, string?];
  const h = head ? head.split(":") : [],
    t = tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const v = parseInt(g, 16);
    out[2 * i] = v >> 8;
    out[2 * i + 1] = v & 0xff;
  });
  return out;
}

/** A BIT STRING of named bits in one byte, trailing zero bits left out as DER wants. */
function namedBits(byte: number): Der {
  let unused = 0;
  while (unused < 7 && !(byte & (1 << unused))) unused++;
  return tlv(0x03, Uint8Array.of(unused, byte));
}

function pem(label: string, der: Uint8Array): string {
  const b64 = Buffer.from(der)
    .toString("base64")
    .replace(/(.{64})/g, "$1\n")
    .replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

function build(o: {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signer: KeyObject;
  days: number;
  ca: boolean;
  names?: string[];
  ips?: string[];
}): string {
  const alg = seq(oid(ECDSA_SHA256));
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  const now = Date.now();
  const extensions: Der[] = [
    extension("2.5.29.19", true, o.ca ? seq(bool(true), uint(Uint8Array.of(0))) : seq()), // basicConstraints (pathLen 0)
    // keyUsage: digitalSignature, plus keyCertSign and cRLSign for the authority
    extension("2.5.29.15", true, o.ca ? namedBits(0x86) : namedBits(0x80)),
  ];
  if (!o.ca) {
    extensions.push(extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.1")))); // extKeyUsage: serverAuth
    const alt = [
      ...(o.names ?? []).map((n) => implicit(2, new TextEncoder().encode(n))),
      ...(o.ips ?? []).map((ip) => implicit(7, ipBytes(ip))),
    ];
    extensions.push(extension("2.5.29.17", false, seq(...alt))); // subjectAltName
  }
  const tbs = seq(
    explicit(0, uint(Uint8Array.of(2))), // v3
    uint(serial),
    alg,
    name(o.issuer),
    seq(time(new Date(now - 60 * 60_000)), time(new Date(now + o.days * 86_400_000))),
    name(o.subject),
    o.publicKey.export({ type: "spki", format: "der" }) as Buffer,
    explicit(3, seq(...extensions)),
  );
  const signature = sign("sha256", tbs, o.signer); // DER ECDSA-Sig-Value
  return pem("CERTIFICATE", seq(tbs, alg, bits(signature)));
}

/** A new authority, valid ten years: the certificate a user installs once on each device. */
export function makeAuthority(host: string): Issued {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const cn = `Moat on ${host}`;
  return {
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string,
    certPem: build({ subject: cn, issuer: cn, publicKey, signer: privateKey, days: 3650, ca: true }),
  };
}

/** A server certificate for `names` and `ips`, signed by `authority`. */
export function issueServer(authority: Issued, names: string[], ips: string[], days: number): Issued {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const ca = new X509Certificate(authority.certPem);
  const issuer = /CN=([^\n]+)/.exec(ca.subject)?.[1] ?? "Moat";
  const signer = createPrivateKey(authority.keyPem);
  const certPem = build({ subject: names[0] ?? "pi.hole", issuer, publicKey, signer, days, ca: false, names, ips });
  return { keyPem: privateKey.export({ type: "pkcs8", format: "pem" }) as string, certPem };
}
