// Real encrypted-DNS peers for tests, on 127.0.0.1 only: a throwaway certificate authority and server
// certificate made with the openssl CLI, and Debian's unbound serving DNS over TLS and over HTTPS
// (HTTP/2) with fixed local answers. Moat trusts the authority through NODE_EXTRA_CA_CERTS.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort } from "./moat.ts";

export interface TestCa {
  dir: string;
  /** the authority's certificate (what a client must trust) */
  caFile: string;
  certFile: string;
  keyFile: string;
  dispose(): void;
}

function openssl(args: string[], cwd: string): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString()}`);
}

/** A CA and a server certificate for `names` (DNS names) and 127.0.0.1, valid two days. */
export function makeTestCa(names: string[]): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "moat-tls-"));
  openssl(
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=Moat test CA",
    ],
    dir,
  );
  openssl(
    [
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
      "-subj",
      `/CN=${names[0]}`,
    ],
    dir,
  );
  writeFileSync(
    join(dir, "ext.cnf"),
    `subjectAltName=${[...names.map((n) => `DNS:${n}`), "IP:127.0.0.1"].join(",")}\nbasicConstraints=CA:FALSE\n`,
  );
  openssl(
    [
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.pem",
      "-days",
      "2",
      "-extfile",
      "ext.cnf",
    ],
    dir,
  );
  return {
    dir,
    caFile: join(dir, "ca.pem"),
    certFile: join(dir, "server.pem"),
    keyFile: join(dir, "server.key"),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface UnboundPeer {
  dotPort: number;
  dohPort: number;
  udpPort: number;
  stop(): Promise<void>;
}

/** unbound answering `records` ("name. TTL IN A addr" lines) over UDP, DoT and DoH with `ca`'s server certificate. */
export async function startUnbound(ca: TestCa, records: string[], extra = ""): Promise<UnboundPeer> {
  const [udpPort, dotPort, dohPort] = [await freePort(), await freePort(), await freePort()];
  const zones = [...new Set(records.map((r) => r.split(/\s+/)[0]!.split(".").slice(-2).join(".")))];
  const conf = join(ca.dir, `unbound-${udpPort}.conf`);
  writeFileSync(
    conf,
    `server:
  interface: 127.0.0.1@${udpPort}
  interface: 127.0.0.1@${dotPort}
  interface: 127.0.0.1@${dohPort}
  tls-port: ${dotPort}
  https-port: ${dohPort}
  tls-service-key: "${ca.keyFile}"
  tls-service-pem: "${ca.certFile}"
  username: ""
  chroot: ""
  directory: "${ca.dir}"
  pidfile: ""
  do-daemonize: no
  use-syslog: no
  logfile: ""
  verbosity: 0
  access-control: 127.0.0.0/8 allow
  num-threads: 1
  incoming-num-tcp: 100
  do-not-query-localhost: yes
${zones.map((z) => `  local-zone: "${z}" static`).join("\n")}
${records.map((r) => `  local-data: "${r}"`).join("\n")}
${extra}
`,
  );
  const proc: Subprocess = Bun.spawn(["unbound", "-d", "-c", conf], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  // ready when the TLS port takes connections
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`unbound exited: ${await new Response(proc.stderr as ReadableStream).text()}`);
    const ok = await new Promise<boolean>((res) => {
      Bun.connect({
        hostname: "127.0.0.1",
        port: dohPort,
        socket: {
          open: (s) => (s.end(), res(true)),
          data() {},
          error: () => res(false),
          connectError: () => res(false),
        },
      }).catch(() => res(false));
    });
    if (ok) break;
    if (Date.now() > deadline) throw new Error("unbound did not start");
    await Bun.sleep(50);
  }
  return {
    udpPort,
    dotPort,
    dohPort,
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}
