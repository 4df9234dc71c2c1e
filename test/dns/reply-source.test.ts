// A UDP answer leaves from the address the query was sent to (RFC 5452 section 3; dig drops any
// other as "reply from unexpected source"). Moat's host gets what a Raspberry Pi on a home network
// has: two IPv4 addresses on one subnet, an IPv6 link-local, a ULA and a global address, on a bridge
// in the root namespace; a client in its own namespace asks each of them over UDP and TCP, with
// dig and with a client of our own that sees every answer's source. The client has one address of
// each family, so the answer to the secondary IPv4 or the global IPv6 address, sent from the
// wildcard, would leave from the address routing picks for the client (the primary, the ULA).
// Then one address goes and another comes while Moat runs (a renumbered prefix, a new alias), and
// all of it again with dns.threads = 2. Everything made here is removed afterwards. Loopback too:
// 127.0.0.0/8 is all local, though lo carries only 127.0.0.1, so 127.0.0.2 reaches the wildcard
// socket, which answers from the destination it reads with each datagram (IPV6_RECVPKTINFO).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { BUN, freePort, ROOT, startMoat, type MoatProcess } from "../harness/moat.ts";
import { canMakeNamespaces, sh, TestLan, type Device } from "../dhcp/lan.ts";
import { until } from "./helpers.ts";

const hasDig = Bun.spawnSync(["sh", "-c", "command -v dig"]).exitCode === 0;
const NAME = "source.test";
const TOKEN = "src1";

let lan: TestLan;
let dev: Device;
let moat: MoatProcess;

const o = () => lan.octet;
/** the host's addresses now (the first is the bridge's own, from TestLan) */
let targets: string[] = [];

function hostAdd(cidr: string): void {
  sh(["ip", "addr", "add", cidr, "dev", lan.bridge, ...(cidr.includes(":") ? ["nodad"] : [])]);
}
function hostDel(cidr: string): void {
  sh(["ip", "addr", "del", cidr, "dev", lan.bridge]);
}

/** What a client checks of one answer: the ID, the question, the rcode, the flags, the address. */
interface Seen {
  id: number;
  from: string | null;
  replyId?: number;
  qr?: boolean;
  rcode?: string;
  question?: string;
  answer?: string[];
}

/** `count` UDP queries to `target` from fresh ports, each answer as our own client sees it. */
function ownClient(target: string, count: number, where: Pick<Device, "exec"> = dev): Seen[] {
  const out = where.exec([
    BUN,
    join(ROOT, "test/dns/reply-source-client.ts"),
    target,
    String(moat.dnsPort),
    NAME,
    String(count),
  ]);
  return out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Seen);
}

function dig(target: string, tcp: boolean, where: Pick<Device, "exec"> = dev): string {
  return where.exec(
    ["dig", `@${target}`, "-p", String(moat.dnsPort), "+tries=1", "+time=3", ...(tcp ? ["+tcp"] : []), NAME, "A"],
    { allowFail: true },
  );
}

/** The address a link-local target is asked by: with the client's interface. */
const scoped = (a: string) => (a.startsWith("fe80") ? `${a}%${dev.ifname}` : a);
/** this machine itself, for the loopback addresses */
const here: Pick<Device, "exec"> = { exec: (cmd, opts) => sh(cmd, opts) };

async function setThreads(n: number): Promise<void> {
  const r = await moat.api("/api/config", {
    method: "PATCH",
    body: JSON.stringify({ config: { dns: { threads: n } } }),
  });
  expect(r.status).toBe(200);
}

function expectAnswered(target: string, where: Pick<Device, "exec"> = dev): void {
  for (const tcp of [false, true]) {
    const out = dig(scoped(target), tcp, where);
    expect({ target, tcp, unexpected: out.includes("unexpected source") }).toEqual({ target, tcp, unexpected: false });
    expect({ target, tcp, status: /status: (\w+)/.exec(out)?.[1] ?? out }).toEqual({ target, tcp, status: "NOERROR" });
    expect(out).toMatch(new RegExp(`${NAME}\\.\\s+\\d+\\s+IN\\s+A\\s+10\\.0\\.0\\.9`));
    expect(out).toContain(`;; SERVER: ${target}`);
  }
  for (const s of ownClient(scoped(target), 6, where))
    expect({ target, ...s, from: s.from?.split("%")[0] ?? null }).toEqual({
      target,
      id: s.id,
      from: target,
      replyId: s.id,
      qr: true,
      rcode: "NOERROR",
      question: NAME,
      answer: ["10.0.0.9"],
    });
}

/** Answers of the threads that answer UDP: the main thread alone, or with several the workers (thread 0, the main one, left out). */
async function perThread(): Promise<number[]> {
  const r = await moat.api("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
  const all = [...(await r.text()).matchAll(/^moat_dns_thread_answers_total\{thread="(\d+)"\} (\d+)$/gm)].map((m) =>
    Number(m[2]),
  );
  return all.length > 1 ? all.slice(1) : all;
}

describe.skipIf(!canMakeNamespaces() || !hasDig)("UDP answers from the address asked", () => {
  beforeAll(async () => {
    lan = new TestLan().up();
    dev = lan.addDevice("02:00:00:25:00:01");
    // the host: 10.77.o.1/24 from TestLan, a secondary on the same subnet, link-local, ULA, global
    hostAdd(`10.77.${o()}.3/24`);
    hostAdd("fe80::1/64");
    hostAdd(`fd77:${o()}::1/64`);
    hostAdd(`2001:db8:${o()}::1/64`);
    // the client: one address per family (and its link-local), the global prefix on-link
    dev.exec(["ip", "addr", "add", `10.77.${o()}.2/24`, "dev", "eth0"]);
    dev.exec(["ip", "addr", "add", "fe80::2/64", "dev", "eth0", "nodad"]);
    dev.exec(["ip", "addr", "add", `fd77:${o()}::2/64`, "dev", "eth0", "nodad"]);
    dev.exec(["ip", "-6", "route", "add", `2001:db8:${o()}::/48`, "dev", "eth0"]);
    targets = [lan.hostIp, `10.77.${o()}.3`, "fe80::1", `fd77:${o()}::1`, `2001:db8:${o()}::1`];
    const port = await freePort();
    moat = await startMoat({
      env: { FTLCONF_webserver_api_metricsToken: TOKEN },
      // ALL: the new addresses' clients count as local only after iface.ts's next read (30 s)
      configToml: `[dns]\nport = ${port}\nlisteningMode = "ALL"\nhosts = ["10.0.0.9 ${NAME}"]\n`,
      dnsPortInConfig: port,
    });
  }, 60_000);

  afterAll(async () => {
    await moat?.dispose();
    await lan?.dispose();
  });

  test("each address answers from itself over UDP and TCP", () => {
    for (const t of targets) expectAnswered(t);
  }, 60_000);

  test("addresses that come and go while Moat runs", async () => {
    // a new alias, and the global prefix renumbered
    hostDel(`10.77.${o()}.3/24`);
    hostAdd(`10.77.${o()}.4/24`);
    hostDel(`2001:db8:${o()}::1/64`);
    hostAdd(`2001:db8:${o()}:1::1/64`);
    targets = [lan.hostIp, `10.77.${o()}.4`, "fe80::1", `fd77:${o()}::1`, `2001:db8:${o()}:1::1`];
    // at once: until the next scan (2 s) binds them, the wildcard answers from the address asked
    for (const t of [`10.77.${o()}.4`, `2001:db8:${o()}:1::1`]) expect(ownClient(t, 1)[0]?.from).toBe(t);
    await Bun.sleep(2500);
    for (const t of targets) expectAnswered(t);
  }, 60_000);

  test("with dns.threads = 2 every thread answers from the address asked", async () => {
    await setThreads(2);
    const before = await perThread();
    expect(before.length).toBe(2);
    for (const t of targets) expectAnswered(t);
    // the kernel spread the fresh source ports over both threads' sockets (counters come 4 times a second)
    await until(async () => (await perThread()).every((n, i) => n > (before[i] ?? 0)), 5000, "both threads answered");
  }, 90_000);
});

describe("loopback addresses besides 127.0.0.1", () => {
  beforeAll(async () => {
    const port = await freePort();
    moat = await startMoat({
      configToml: `[dns]\nport = ${port}\nhosts = ["10.0.0.9 ${NAME}"]\n`,
      dnsPortInConfig: port,
    });
  }, 30_000);
  afterAll(async () => {
    await moat?.dispose();
  });

  test.skipIf(!hasDig)(
    "127.0.0.2 and 127.1.2.3 answer from themselves, with dns.threads 1 and 2",
    async () => {
      for (const t of ["127.0.0.2", "127.1.2.3", "127.0.0.1", "::1"]) expectAnswered(t, here);
      await setThreads(2);
      for (const t of ["127.0.0.2", "127.1.2.3", "127.0.0.1", "::1"]) expectAnswered(t, here);
    },
    60_000,
  );
});
