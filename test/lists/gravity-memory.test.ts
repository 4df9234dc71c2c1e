// What lets a big list build on a small board (bench/gravity/small-board.ts: 10M names in 512 MiB):
// the gravity child gives way to DNS and keeps SQLite's temporary files in the data directory, and the
// server's filter maps the snapshot file the run wrote instead of copying it into its heap.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { ask, firstAddress } from "../dns/helpers.ts";
import { gravityChild } from "./helpers.ts";
import { GRAVITY_NICE } from "../../src/filter/gravity/cli.ts";

let lists: ReturnType<typeof Bun.serve>;
let m: MoatProcess;
let release: () => void = () => {};
const held = new Promise<void>((r) => (release = r));

beforeAll(async () => {
  // the list is answered once the test has looked at the child
  lists = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    fetch: async () => {
      await held;
      return new Response("held.memory.test\n");
    },
  });
  m = await startMoat();
});
afterAll(async () => {
  release();
  await m.dispose();
  lists.stop(true);
});

test("the gravity child runs niced, with SQLite's temporary files in the data directory; the filter maps the snapshot", async () => {
  const added = await m.api("/api/lists?type=block", {
    method: "POST",
    body: JSON.stringify({ address: `http://127.0.0.1:${lists.port}/held.txt` }),
  });
  expect(added.status).toBe(201);
  const run = await m.api("/api/action/gravity", { method: "POST" });
  const child = await gravityChild(m.proc!.pid);
  expect(child).toBeDefined();
  // the download is held open: the child is there to look at
  const stat = readFileSync(`/proc/${child}/stat`, "utf8");
  expect(Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])).toBe(GRAVITY_NICE);
  expect(readFileSync(`/proc/${child}/environ`, "latin1").split("\0")).toContain(`SQLITE_TMPDIR=${m.dataDir}`);
  release();
  expect(await run.text()).toContain("Imported 1 domains");

  expect(firstAddress(await ask(m.dnsPort, "held.memory.test"))).toBe("0.0.0.0");
  const snapshot = join(m.dataDir, "gravity.snapshot");
  const maps = readFileSync(`/proc/${m.proc!.pid}/maps`, "utf8").split("\n");
  expect(maps.some((l) => l.endsWith(` ${snapshot}`))).toBe(true);
});
