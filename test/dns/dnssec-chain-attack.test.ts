// KeyTrap's cousin (CVE-2023-50387): an answer whose CNAME chain runs through many signed zones, each
// with a DNSKEY RRset that never verifies. Each zone alone stays inside the per-job budget, so a
// validator bounded only per job fetches and checks every zone's keys: 40 zones cost ~220 ms of CPU
// per query. The work is counted where it shows without timing: the DS and DNSKEY queries Moat sends
// its upstream (a counting relay in front of nsd, dnssec-chains.sh) for one client query.
import * as packet from "dns-packet";
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { decodeReply, encodeQuery, sendTcp, sendUdp, tcpFrames, until, type Reply } from "./helpers.ts";

const GOOD = 6;
const BAD = 40;
/** src/dns/dnssec/validator.ts QUERY_FETCHES: DS and DNSKEY queries one client query may cause */
const QUERY_FETCHES = 32;

let dir: string;
let nsd: Subprocess;
let relayUdp: { close(): void } | undefined;
let relayTcp: { stop(closeActive?: boolean): void } | undefined;
let m: MoatProcess;
/** "<qtype> <qname>" of every query that reached the relay */
const seen: string[] = [];

function note(msg: Uint8Array): void {
  try {
    const q = packet.decode(Buffer.from(msg)).questions?.[0];
    if (q) seen.push(`${q.type} ${q.name.toLowerCase()}`);
  } catch {
    // not a query the relay can read: nsd answers it
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "moat-dnssec-chain-"));
  const [nsdPort, relayPort] = [await freePort(), await freePort()];
  const built = Bun.spawnSync([
    "bash",
    join(import.meta.dir, "dnssec-chains.sh"),
    dir,
    String(nsdPort),
    String(GOOD),
    String(BAD),
  ]);
  if (built.exitCode !== 0) throw new Error(`chains: ${built.stderr.toString()}`);
  const anchor = readFileSync(join(dir, "root.ds"), "utf8").trim().replace(/\s+/g, " ");
  nsd = Bun.spawn(["nsd", "-d", "-c", join(dir, "nsd.conf")], { cwd: dir, stdout: "ignore", stderr: "ignore" });
  relayUdp = await Bun.udpSocket({
    hostname: "127.0.0.1",
    port: relayPort,
    binaryType: "uint8array",
    socket: {
      data: (s, buf, port, addr) => {
        note(buf);
        void sendUdp(nsdPort, buf.slice(), "127.0.0.1", 3000).then((r) => r && s.send(r, port, addr));
      },
      // an answer nsd gave late goes to a source port Moat closed meanwhile (each DNS thread's
      // forwarder gives up its ports): the kernel's refusal of it is no failure of the test
      error: () => {},
    },
  });
  relayTcp = Bun.listen<{ frames: (c: Uint8Array) => Uint8Array[] }>({
    hostname: "127.0.0.1",
    port: relayPort,
    socket: {
      open: (s) => {
        s.data = { frames: tcpFrames() };
      },
      data: (s, chunk) => {
        for (const msg of s.data.frames(chunk)) {
          note(msg);
          void sendTcp(nsdPort, [msg]).then(([r]) => {
            if (!r) return;
            const f = new Uint8Array(r.length + 2);
            f[0] = r.length >> 8;
            f[1] = r.length & 0xff;
            f.set(r, 2);
            s.write(f);
          });
        }
      },
    },
  });
  await until(
    async () => (await sendUdp(relayPort, encodeQuery(".", { type: "SOA" }), "127.0.0.1", 500)) !== null,
    10000,
    "nsd behind the relay",
  );
  m = await startMoat({
    env: {
      FTLCONF_dns_upstreams: `127.0.0.1#${relayPort}`,
      FTLCONF_dns_dnssec: "true",
      FTLCONF_dns_trustAnchors: anchor,
    },
  });
}, 120_000);

afterAll(async () => {
  await m?.dispose();
  relayUdp?.close();
  relayTcp?.stop(true);
  nsd?.kill();
  await nsd?.exited;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ask(name: string): Promise<Reply> {
  const raw = (await sendTcp(m.dnsPort, [encodeQuery(name, { dnssecOk: true })], 1, 15000))[0];
  if (!raw) throw new Error(`no answer for ${name}`);
  return decodeReply(raw);
}

/** the zones of one chain whose keys Moat asked for since `from` */
const keyQueries = (from: number, prefix: string) =>
  seen.slice(from).filter((s) => new RegExp(`^(DS|DNSKEY) ${prefix}\\d+\\.test$`).test(s));

test("a CNAME chain through good signed zones validates", async () => {
  const r = await ask("c.g0.test");
  expect(r.rcode).toBe("NOERROR");
  expect(((r.msg.flags ?? 0) & 0x20) !== 0).toBe(true);
  expect(r.answers.filter((a) => a.type === "CNAME")).toHaveLength(GOOD - 1);
}, 30_000);

test("a CNAME chain through 40 zones whose keys fail: SERVFAIL with an EDE, after a bounded number of key queries", async () => {
  const from = seen.length;
  const r = await ask("c.b0.test");
  expect(r.rcode).toBe("SERVFAIL");
  expect(r.ede).not.toBeNull();
  expect(r.ede!.code).toBe(6);
  expect(r.ede!.text).toContain("DNSKEY");
  const asked = keyQueries(from, "b");
  // the first zone's keys fail: the answer is bogus, and no other zone of the chain is looked at
  expect(asked.length).toBeLessThanOrEqual(QUERY_FETCHES);
  expect(new Set(asked.map((s) => s.split(" ")[1])).size).toBe(1);
}, 30_000);
