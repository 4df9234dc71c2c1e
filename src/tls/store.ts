// The certificate Moat serves HTTPS and DNS over TLS with: the user's (webserver.tls.cert, one PEM
// file holding the key and the certificate chain, as Pi-hole takes it), else one Moat issues itself
// from its own authority in the data directory. The generated one is made at first start, renewed
// when a third of its validity (webserver.tls.validity days) is left or when the names it must cover
// change, and on request (POST /api/action/tls/regenerate). Listeners subscribe to changes.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { hostname, networkInterfaces } from "node:os";
import { join } from "node:path";
import { CLIENT_ID, type ConfigStore } from "../config/index.ts";
import { issueServer, makeAuthority, type Issued } from "./certificate.ts";

export interface TlsMaterial {
  keyPem: string;
  /** the server certificate (and the chain the user's file carries) */
  certPem: string;
  /** the user's own certificate: HSTS is sent only then (a generated one may need trusting first) */
  user: boolean;
  /** DNS names the certificate covers, wildcards as "*.name" */
  names: string[];
  notAfter: string;
  /** SHA-256 fingerprint of the server certificate, colon-separated hex */
  fingerprint: string;
  /** the file it came from */
  file: string;
}

type Log = (level: "info" | "warn" | "error", message: string) => void;

export class TlsStore {
  private cached: TlsMaterial | null = null;
  private readonly listeners = new Set<(m: TlsMaterial) => void>();
  private unsub: (() => void) | null = null;

  constructor(private readonly o: { dataDir: string; config: ConfigStore; log: Log }) {}

  get caFile(): string {
    return join(this.o.dataDir, "tls_ca.crt");
  }

  private get generatedFile(): string {
    return join(this.o.dataDir, "tls.pem");
  }

  /** The authority's certificate (what a user installs on a phone), made on first use. */
  authorityPem(): string {
    return this.authority().certPem;
  }

  /** The certificate to serve now (loaded, or issued, on first use). */
  current(): TlsMaterial {
    if (!this.cached) {
      this.cached = this.load();
      this.unsub ??= this.o.config.subscribe((next, prev) => {
        if (next.webserver.tls.cert !== prev.webserver.tls.cert) this.changed(this.load());
      });
    }
    return this.cached;
  }

  /** Issues a new server certificate from Moat's authority (the authority stays, so devices keep trusting it). */
  regenerate(): TlsMaterial {
    this.issue();
    const m = this.load();
    if (m.user)
      this.o.log(
        "warn",
        `a new certificate was made in ${this.generatedFile}, but webserver.tls.cert (${m.file}) is the one served`,
      );
    this.changed(m);
    return m;
  }

  onChange(fn: (m: TlsMaterial) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  stop(): void {
    this.unsub?.();
    this.listeners.clear();
  }

  private changed(m: TlsMaterial): void {
    this.cached = m;
    for (const fn of this.listeners) fn(m);
  }

  private load(): TlsMaterial {
    const file = this.o.config.current.webserver.tls.cert;
    if (file) {
      try {
        return read(file, true);
      } catch (e) {
        this.o.log("error", `webserver.tls.cert: ${(e as Error).message}; serving Moat's own certificate instead`);
      }
    }
    let m: TlsMaterial | null = null;
    try {
      m = existsSync(this.generatedFile) ? read(this.generatedFile, false) : null;
    } catch (e) {
      this.o.log("warn", `${(e as Error).message}: making a new one`);
    }
    if (!m || this.needsRenewal(m)) {
      this.issue();
      m = read(this.generatedFile, false);
    }
    return m;
  }

  private needsRenewal(m: TlsMaterial): boolean {
    const days = this.o.config.current.webserver.tls.validity || 47;
    const left = (Date.parse(m.notAfter) - Date.now()) / 86_400_000;
    return left < days / 3 || wantedNames(this.o.config).some((n) => !m.names.includes(n));
  }

  private authority(): Issued {
    const keyFile = join(this.o.dataDir, "tls_ca.key");
    if (existsSync(keyFile) && existsSync(this.caFile))
      return { keyPem: readFileSync(keyFile, "utf8"), certPem: readFileSync(this.caFile, "utf8") };
    const ca = makeAuthority(hostname());
    writeFileSync(keyFile, ca.keyPem, { mode: 0o600 });
    writeFileSync(this.caFile, ca.certPem);
    this.o.log(
      "info",
      `made a certificate authority for this Moat: ${this.caFile} (install it on devices to trust Moat's HTTPS and DNS over TLS)`,
    );
    return ca;
  }

  private issue(): void {
    const days = this.o.config.current.webserver.tls.validity || 47;
    const issued = issueServer(this.authority(), wantedNames(this.o.config), ownAddresses(), days);
    const tmp = `${this.generatedFile}.tmp`;
    writeFileSync(tmp, issued.keyPem + issued.certPem, { mode: 0o600 });
    renameSync(tmp, this.generatedFile);
    this.o.log(
      "info",
      `made a TLS certificate for ${wantedNames(this.o.config)
        .filter((n) => !n.startsWith("*."))
        .join(", ")}, valid ${days} days: ${this.generatedFile}`,
    );
  }
}

/** pi.hole (webserver.domain), the host name and its name in the local domain, each with its subdomains (client IDs). */
function wantedNames(config: ConfigStore): string[] {
  const c = config.current;
  const host = hostname().toLowerCase();
  const base = [c.webserver.domain || "pi.hole", host, ...(c.dns.domain.name ? [`${host}.${c.dns.domain.name}`] : [])];
  return [...new Set(base.flatMap((n) => [n, `*.${n}`])), "localhost"];
}

function ownAddresses(): string[] {
  const out = new Set(["127.0.0.1", "::1"]);
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (!a.address.startsWith("fe80")) out.add(a.address);
  return [...out];
}

/** A PEM file with a private key and at least one certificate, the key matching the first certificate. */
function read(file: string, user: boolean): TlsMaterial {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const keyPem = /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]+?-----END \1PRIVATE KEY-----/.exec(text)?.[0];
  const certs = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (!keyPem) throw new Error(`${file} holds no private key (it must hold the key and the certificate, PEM)`);
  if (!certs.length) throw new Error(`${file} holds no certificate (it must hold the key and the certificate, PEM)`);
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(certs[0]!);
  } catch (e) {
    throw new Error(`${file}: the certificate cannot be read (${(e as Error).message})`);
  }
  let matches = false;
  try {
    matches = x509.checkPrivateKey(createPrivateKey(keyPem));
  } catch (e) {
    throw new Error(`${file}: the private key cannot be read (${(e as Error).message})`);
  }
  if (!matches) throw new Error(`${file}: the private key does not belong to the certificate`);
  if (Date.parse(x509.validTo) < Date.now())
    throw new Error(`${file}: the certificate expired on ${new Date(x509.validTo).toISOString()}`);
  const names = (x509.subjectAltName ?? "")
    .split(/,\s*/)
    .filter((s) => s.startsWith("DNS:"))
    .map((s) => s.slice(4).toLowerCase());
  return {
    keyPem,
    certPem: `${certs.join("\n")}\n`,
    user,
    names,
    notAfter: new Date(x509.validTo).toISOString(),
    fingerprint: x509.fingerprint256,
    file,
  };
}

/**
 * The client ID in a TLS server name: `<id>.<name>` where `*.<name>` is on the certificate. IDs are
 * what AdGuard Home allows: letters, digits and hyphens, up to 64.
 */
export function clientIdFromServerName(sni: string | undefined, m: TlsMaterial): string | null {
  if (!sni) return null;
  const s = sni.toLowerCase();
  const dot = s.indexOf(".");
  if (dot <= 0) return null;
  const id = s.slice(0, dot);
  return m.names.includes(`*.${s.slice(dot + 1)}`) && CLIENT_ID.test(id) ? id : null;
}

export { CLIENT_ID };
