// The gravity child dies with the server: kill -9 of the server in the middle of a gravity run
// (a list that never finishes downloading) ends the child too, instead of leaving an orphan that
// keeps downloading and writing gravity.db; the next server runs gravity again at once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { alive, gravityChild } from "./helpers.ts";

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
  const child = await gravityChild(server);
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
