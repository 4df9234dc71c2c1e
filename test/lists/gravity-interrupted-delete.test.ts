// A list can be deleted while a gravity run is going and after one was cut short by a kill -9 of the
// server: the run's build table holds the rows of the lists it has already parsed, which reference
// adlist, and refused the delete with a 500 "FOREIGN KEY constraint failed" until the next full run.
// The first list is parsed at once; the second hangs in its download until the test lets it go, so
// the run is held exactly where the build table holds the first list's rows.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { alive, gravityChild } from "./helpers.ts";

const ROWS = 20_000;

let lists: ReturnType<typeof Bun.serve>;
let m: MoatProcess;
/** ends the hanging download of /slow.txt */
let release: () => void = () => {};
let slowAsked!: Promise<void>;
let slowAskedNow: () => void = () => {};

const url = (path: string) => `http://127.0.0.1:${lists.port}${path}`;

function fastList(name: string): string {
  let text = `${name}.del.test\n`;
  for (let i = 0; i < ROWS; i++) text += `d${i}.${name}.del.test\n`;
  return text;
}

function armSlow(): void {
  slowAsked = new Promise((r) => (slowAskedNow = r));
}

beforeAll(async () => {
  armSlow();
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      const path = new URL(req.url).pathname;
      if (path !== "/slow.txt") return new Response(fastList(path.slice(1, -4)));
      slowAskedNow();
      const enc = new TextEncoder();
      return new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(enc.encode("slow.del.test\n"));
            release = () => {
              try {
                c.close();
              } catch {
                // the client went away (the kill)
              }
            };
          },
        }),
      );
    },
  });
  m = await startMoat();
});
afterAll(async () => {
  release();
  await m.dispose();
  lists.stop(true);
});

async function addList(path: string): Promise<void> {
  const r = await m.api("/api/lists?type=block", { method: "POST", body: JSON.stringify({ address: url(path) }) });
  expect(r.status).toBe(201);
}

const deleteList = async (path: string) =>
  (await m.api(`/api/lists/${encodeURIComponent(url(path))}?type=block`, { method: "DELETE" })).status;

function rowsOf(name: string): number {
  const db = new Database(join(m.dataDir, "gravity.db"), { readonly: true });
  try {
    return (
      db.query("SELECT COUNT(*) AS n FROM gravity WHERE domain LIKE ?").get(`%.${name}.del.test`) as { n: number }
    ).n;
  } finally {
    db.close();
  }
}

async function dig(name: string): Promise<string> {
  const p = Bun.spawn(["dig", "+short", "+time=2", "+tries=2", "-p", String(m.dnsPort), "@127.0.0.1", name, "A"], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return out.trim();
}

/** starts a run and returns once it waits in the download of /slow.txt, the lists before it parsed */
async function runUntilSlow() {
  armSlow();
  const run = await m.api("/api/action/gravity", { method: "POST" });
  const reader = run.body!.getReader();
  await reader.read();
  await slowAsked;
  // the list before it is parsed and committed to the build table before /slow.txt is asked for
  return reader;
}

test("a list is deleted during a gravity run, and the run leaves none of its rows", async () => {
  await addList("/first.txt");
  await addList("/slow.txt");
  await addList("/third.txt");
  const reader = await runUntilSlow();

  expect(await deleteList("/first.txt")).toBe(204);
  // a list not fetched yet either
  expect(await deleteList("/third.txt")).toBe(204);

  release();
  let text = "";
  const dec = new TextDecoder();
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += dec.decode(r.value);
  expect(text).toContain("Done");
  expect({ first: rowsOf("first"), third: rowsOf("third") }).toEqual({ first: 0, third: 0 });
  expect(await dig("first.del.test")).not.toBe("0.0.0.0");
  expect(await dig("slow.del.test")).toBe("0.0.0.0");
}, 60_000);

test("a list is deleted after a kill -9 of the server in a gravity run", async () => {
  await addList("/fourth.txt");
  // /slow.txt comes after /fourth.txt in list order: delete it and add it again
  expect(await deleteList("/slow.txt")).toBe(204);
  await addList("/slow.txt");
  const reader = await runUntilSlow();
  const child = await gravityChild(m.proc!.pid);
  expect(child).toBeDefined();
  m.proc!.kill("SIGKILL");
  await m.proc!.exited;
  void reader.cancel().catch(() => {});
  for (let i = 0; i < 100 && alive(child!); i++) await Bun.sleep(50);
  expect(alive(child!)).toBe(false);
  release();

  await m.start();
  expect(await deleteList("/fourth.txt")).toBe(204);
  expect(await deleteList("/slow.txt")).toBe(204);
  expect(await dig("fourth.del.test")).not.toBe("0.0.0.0");
}, 60_000);
