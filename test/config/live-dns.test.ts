// Config changes take effect on the running DNS server without a restart, observed with real
// queries: upstreams (two dnsmasq processes on 127.0.0.1), blocking mode, local records, and the
// DNS port itself. Runs when the DNS engine (src/dns) is present.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { ROOT, freePort, run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { call } from "./helpers.ts";

const hasDns = existsSync(join(ROOT, "src/dns/server.ts"));
let m: MoatProcess;
let dnsPort = 0;
/** false while src/dns exists but is not wired into `serve` yet */
let dnsUp = false;
const upstreams: Array<{ port: number; proc: Subprocess }> = [];

async function startDnsmasq(answer: string): Promise<{ port: number; proc: Subprocess }> {
  const port = await freePort();
  const proc = Bun.spawn(
    [
      "dnsmasq",
      "--keep-in-foreground",
      "--conf-file=/dev/null",
      `--port=${port}`,
      "--listen-address=127.0.0.1",
      "--bind-interfaces",
      "--no-resolv",
      "--no-hosts",
      `--address=/up.test/${answer}`,
      "--user=root",
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  for (let i = 0; i < 100; i++) {
    const r = await run(["dig", "+short", "+tries=1", "+time=1", "-p", String(port), "@127.0.0.1", "probe.up.test"]);
    if (r.stdout.trim() === answer) return { port, proc };
    await Bun.sleep(50);
  }
  throw new Error(`dnsmasq on ${port} did not answer`);
}

async function dig(name: string, type = "A", port = dnsPort): Promise<string> {
  return (await run(["dig", "+tries=2", "+time=2", "-p", String(port), "@127.0.0.1", name, type])).stdout;
}

const answerOf = (out: string) => /ANSWER SECTION:\n\S+\s+\d+\s+IN\s+\w+\s+(\S+)/.exec(out)?.[1] ?? "";
const statusOf = (out: string) => /status: (\w+)/.exec(out)?.[1] ?? "";

/** Polls until `fn` returns what is expected (changes apply asynchronously). */
async function eventually<T>(fn: () => Promise<T>, want: T, timeoutMs = 10000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let got = await fn();
  while (got !== want && Date.now() < deadline) {
    await Bun.sleep(100);
    got = await fn();
  }
  return got;
}

beforeAll(async () => {
  if (!hasDns) return;
  upstreams.push(await startDnsmasq("10.0.0.1"), await startDnsmasq("10.0.0.2"));
  dnsPort = await freePort();
  // dns.port comes from the file, not the environment, so that the API may change it
  m = await startMoat({
    configToml: `[dns]\nport = ${dnsPort}\nupstreams = ["127.0.0.1#${upstreams[0]!.port}"]\n`,
    env: { FTLCONF_dns_port: undefined as unknown as string },
  });
  dnsUp = m.output.includes("DNS listening");
}, 60000);
afterAll(async () => {
  await m?.dispose();
  for (const u of upstreams) u.proc.kill();
});

test.skipIf(!hasDns)(
  "a new upstream is used at once",
  async () => {
    if (!dnsUp) return;
    expect(answerOf(await dig("a.up.test"))).toBe("10.0.0.1");
    const r = await call(m, "PATCH", "/api/config", {
      config: { dns: { upstreams: [`127.0.0.1#${upstreams[1]!.port}`] } },
    });
    expect(r.status).toBe(200);
    expect(await eventually(async () => answerOf(await dig(`b${Date.now()}.up.test`)), "10.0.0.2")).toBe("10.0.0.2");
  },
  30000,
);

test.skipIf(!hasDns)(
  "local records and CNAMEs added through the API answer at once, and go away",
  async () => {
    if (!dnsUp) return;
    expect((await call(m, "PUT", "/api/config/dns/hosts/10.1.2.3%20nas.lan")).status).toBe(201);
    expect((await call(m, "PUT", "/api/config/dns/cnameRecords/files.lan%2Cnas.lan%2C300")).status).toBe(201);
    expect(await eventually(async () => answerOf(await dig("nas.lan")), "10.1.2.3")).toBe("10.1.2.3");
    expect(await dig("files.lan")).toContain("nas.lan.");
    expect((await call(m, "DELETE", "/api/config/dns/hosts/10.1.2.3%20nas.lan")).status).toBe(204);
    expect(await eventually(async () => answerOf(await dig("nas.lan")), "")).toBe("");
  },
  30000,
);

test.skipIf(!hasDns)(
  "the blocking mode switches at once",
  async () => {
    if (!dnsUp) return;
    const add = await call(m, "POST", "/api/domains/deny/exact", { domain: "blocked.up.test" });
    expect([200, 201]).toContain(add.status);
    expect(await eventually(async () => answerOf(await dig("blocked.up.test")), "0.0.0.0")).toBe("0.0.0.0");
    expect((await call(m, "PATCH", "/api/config", { config: { dns: { blocking: { mode: "NX" } } } })).status).toBe(200);
    expect(await eventually(async () => statusOf(await dig("blocked.up.test")), "NXDOMAIN")).toBe("NXDOMAIN");
  },
  30000,
);

test.skipIf(!hasDns)(
  "a new DNS port is listened on without restarting",
  async () => {
    if (!dnsUp) return;
    const next = await freePort();
    const r = await call(m, "PATCH", "/api/config", { config: { dns: { port: next } } });
    expect(r.status).toBe(200);
    expect(await eventually(async () => answerOf(await dig("c.up.test", "A", next)), "10.0.0.2")).toBe("10.0.0.2");
    expect((await call(m, "GET", "/api/config/dns/port")).body.config.dns.port).toBe(next);
  },
  30000,
);
