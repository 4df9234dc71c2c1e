// The machine itself (127.0.0.1, ::1) is named `localhost` in the top clients and the query log, as
// Pi-hole shows it, not pi.hole: the name comes from the PTR answer of Moat's own chain.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

let moat: MoatProcess;
beforeAll(async () => {
  moat = await startMoat();
});
afterAll(async () => {
  await moat?.dispose();
});

async function get(path: string): Promise<any> {
  const r = await moat.api(path);
  expect(r.status).toBe(200);
  return r.json();
}

test("127.0.0.1 and ::1 are localhost in /api/stats/top_clients and /api/queries", async () => {
  for (const server of ["127.0.0.1", "::1"]) {
    const p = Bun.spawn(
      ["dig", "+short", "+tries=1", "+time=5", "-p", String(moat.dnsPort), `@${server}`, "pi.hole", "A"],
      { stdout: "pipe", stderr: "pipe" },
    );
    expect((await new Response(p.stdout).text()).trim()).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    await p.exited;
  }
  // names are looked up in the background every 2 s
  const deadline = Date.now() + 15_000;
  let clients: Array<{ ip: string; name: string }> = [];
  while (Date.now() < deadline) {
    clients = (await get("/api/stats/top_clients")).clients;
    if (clients.length === 2 && clients.every((c) => c.name !== "")) break;
    await Bun.sleep(200);
  }
  expect(clients.map((c) => [c.ip, c.name]).sort()).toEqual([
    ["127.0.0.1", "localhost"],
    ["::1", "localhost"],
  ]);
  const queries: Array<{ client: { ip: string; name: string | null } }> = (await get("/api/queries")).queries;
  expect(queries.length).toBe(2);
  for (const q of queries) expect(q.client.name).toBe("localhost");
});
