// A DNS thread that dies is started again in its place (src/dns/threads/pool.ts). With dns.threads = 2,
// a test-only hook (MOAT_TEST_DNS_THREAD_CRASH, src/dns/threads/worker.ts) makes the thread that gets a
// query for one name throw out of its loop, as a defect would. The log and /api/info/messages must say
// so, and within a bound both threads' sockets must answer again: queries from fresh source ports, which
// the kernel spreads over the sockets, each answered, and each thread's answers counting up again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as packet from "dns-packet";
import { freePort, startMoat, type MoatProcess } from "../harness/moat.ts";
import { decodeReply, firstAddress, sendUdp, until } from "./helpers.ts";

let moat: MoatProcess;
const TOKEN = "r3start";
const CRASH = "crash.restart.test";

beforeAll(async () => {
  const port = await freePort();
  moat = await startMoat({
    env: { FTLCONF_dns_threads: "2", FTLCONF_webserver_api_metricsToken: TOKEN, MOAT_TEST_DNS_THREAD_CRASH: CRASH },
    configToml: `[dns]\nport = ${port}\nhosts = ["10.0.0.8 up.restart.test"]\n`,
    dnsPortInConfig: port,
  });
}, 30_000);
afterAll(async () => {
  await moat?.dispose();
});

/** Answers per worker thread as /metrics lists them (thread 0, the main thread, left out). */
async function perThread(): Promise<number[]> {
  const text = await (await moat.api("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  return [...text.matchAll(/^moat_dns_thread_answers_total\{thread="(\d+)"\} (\d+)$/gm)]
    .slice(1)
    .map((m) => Number(m[2]));
}

let nextId = 0x3100;
const query = (name: string) =>
  packet.encode({
    type: "query",
    id: (nextId = (nextId + 1) & 0xffff),
    flags: packet.RECURSION_DESIRED,
    questions: [{ type: "A", name }],
  });

/** `n` queries at once, each from a fresh source port: how many came back with the hosts entry. */
async function burst(n: number): Promise<number> {
  const replies = await Promise.all(
    Array.from({ length: n }, () => sendUdp(moat.dnsPort, query("up.restart.test"), "127.0.0.1", 2000)),
  );
  return replies.filter((r) => r && firstAddress(decodeReply(r)) === "10.0.0.8").length;
}

test("a DNS thread that throws out of its loop is started again, said in the log and the messages, and every socket answers again", async () => {
  await until(
    async () => (await burst(40)) === 40 && (await perThread()).every((n) => n > 0),
    10_000,
    "both threads answering",
  );
  const before = await perThread();
  expect(before.length).toBe(2);

  // fresh source ports until one lands on a thread: that thread ends, and its error is logged
  // (the error's log line goes on with the source lines Bun quotes)
  const ended = new RegExp(`DNS thread (\\d): [\\s\\S]{0,500}?${CRASH} ends this thread`);
  for (let i = 0; i < 20 && !ended.test(moat.output); i++) await sendUdp(moat.dnsPort, query(CRASH), "127.0.0.1", 200);
  const thread = Number(ended.exec(await moat.outputWith(ended, 5000))?.[1]);
  expect([1, 2]).toContain(thread);

  // started again in its place: every query answered, and both threads count up from where they were
  await until(
    async () => {
      const answered = await burst(40);
      const now = await perThread();
      return answered === 40 && now.length === 2 && now.every((n, i) => n > before[i]! + 1);
    },
    15_000,
    "both threads answering again",
  );
  expect(moat.output).toContain(`DNS thread ${thread} stopped after`);
  expect(moat.output).toContain(`DNS thread ${thread} started again`);

  const messages = (await (await moat.api("/api/info/messages")).json()) as {
    messages: Array<{ type: string; plain: string }>;
  };
  const said = messages.messages.filter(
    (m) => m.type === "DNSMASQ_WARN" && m.plain.includes(`DNS thread ${thread} stopped`),
  );
  expect(said.length).toBe(1);
  expect(said[0]!.plain).toContain("starts it again");
}, 60_000);
