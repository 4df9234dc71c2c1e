// Starting Moat with HTTPS (a `443s`-style entry on a free port) and DNS over TLS, and reading what
// a TLS client sees: the served certificate's fingerprint (openssl s_client) and real clients' output.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, MoatProcess, type MoatOptions, startOnFreePorts } from "../harness/moat.ts";

export interface TlsMoat {
  moat: MoatProcess;
  httpsPort: number;
  dotPort: number;
  /** Moat's authority, what a device is told to trust */
  caFile: string;
}

export async function startTlsMoat(env: Record<string, string> = {}, opts: MoatOptions = {}): Promise<TlsMoat> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "moat-test-"));
  let https = 0;
  let dot = 0;
  const moat = await startOnFreePorts(async () => {
    const [http, dns] = [await freePort(), await freePort()];
    [https, dot] = [await freePort(), await freePort()];
    return new MoatProcess(dataDir, http, dns, {
      ...opts,
      env: {
        FTLCONF_webserver_port: `127.0.0.1:${http},127.0.0.1:${https}s`,
        FTLCONF_dns_tls_port: String(dot),
        FTLCONF_dns_rateLimit_count: "0",
        ...env,
      },
    });
  });
  return { moat, httpsPort: https, dotPort: dot, caFile: join(dataDir, "tls_ca.crt") };
}

export async function run(cmd: string[], timeoutMs = 15000): Promise<{ code: number; out: string }> {
  const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const timer = setTimeout(() => p.kill(), timeoutMs);
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, out: out + err };
}

/** The SHA-256 fingerprint (AA:BB:…) of the certificate served on `port` for `sni`. */
export async function servedFingerprint(port: number, sni = "pi.hole"): Promise<string> {
  const p = Bun.spawn(["openssl", "s_client", "-connect", `127.0.0.1:${port}`, "-servername", sni], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "ignore",
  });
  const pem =
    /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(await new Response(p.stdout).text())?.[0] ?? "";
  const f = Bun.spawn(["openssl", "x509", "-noout", "-fingerprint", "-sha256"], {
    stdin: new TextEncoder().encode(pem),
    stdout: "pipe",
    stderr: "pipe",
  });
  return (await new Response(f.stdout).text()).trim().replace(/^.*=/, "");
}
