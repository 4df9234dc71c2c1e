// The gravity child dies with the server: kill -9 of the server in the middle of a gravity run
// (a list that never finishes downloading) ends the child too, instead of leaving an orphan that
// keeps downloading and writing gravity.db; the next server runs gravity again at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

let lists: ReturnType<typeof Bun.serve>;
let m: MoatProcess;
const hanging: ReadableStreamDefaultController<Uint8Array>[] = [];

beforeAll(async () => {
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req) => {
      if (new URL(req.url).pathname === "/done.txt") return new Response("done.orphan.test\n");
      // one line, then nothing more until the test ends
      return new Response(
        new ReadableStream<Uint8Array>({
          start: (c) => (hanging.push(c), c.enqueue(new TextEncoder().encode("first.orphan.test\n"))),
        }),
      );
    },
  });
  m = await startMoat();
});
afterAll(async () => {
  for (const c of hanging) {
    try {
      c.close();
    } catch {
      // already closed by the client going away
    }
  }
  await m.dispose();
  lists.stop(true);
});

/** Live (not zombie) processes whose parent is `ppid`. */
function childrenOf(ppid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === ppid && fields[0] !== "Z") out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

test("kill -9 of the server in a gravity run ends the gravity child", async () => {
  expect(
    (
      await m.api("/api/lists?type=block", {
        method: "POST",
        body: JSON.stringify({ address: `http://127.0.0.1:${lists.port}/hangs.txt` }),
      })
    ).status,
  ).toBe(201);
  const run = await m.api("/api/action/gravity", { method: "POST" });
  const reader = run.body!.getReader();
  await reader.read();
  const server = m.proc!.pid;
  let child: number | undefined;
  for (let i = 0; i < 100 && child === undefined; i++) {
    child = childrenOf(server).find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("gravity"));
    if (child === undefined) await Bun.sleep(50);
  }
  expect(child).toBeDefined();
  // still downloading: the hanging list keeps it busy
  await Bun.sleep(300);
  expect(alive(child!)).toBe(true);

  m.proc!.kill("SIGKILL");
  await m.proc!.exited;
  void reader.cancel().catch(() => {});
  let gone = false;
  for (let i = 0; i < 100 && !gone; i++) {
    gone = !alive(child!);
    if (!gone) await Bun.sleep(100);
  }
  expect(gone).toBe(true);

  // the next server runs gravity at once (the lock was given back)
  await m.start();
  expect(
    (
      await m.api("/api/lists?type=block", {
        method: "POST",
        body: JSON.stringify({ address: `http://127.0.0.1:${lists.port}/done.txt` }),
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await m.api(`/api/lists/${encodeURIComponent(`http://127.0.0.1:${lists.port}/hangs.txt`)}?type=block`, {
        method: "DELETE",
      })
    ).status,
  ).toBe(204);
  const again = await (await m.api("/api/action/gravity", { method: "POST" })).text();
  expect(again).not.toContain("already running");
  expect(again).toContain("Done");
});
