// The log is for the administrator (a journal on an SD card): a library's own diagnostics must not
// reach it. Elysia's exact-mirror cannot compile a reply schema whose keys hold "%" (Pi-hole's
// "%mem", "%cpu", "%used") and dumped the whole schema, about 2,000 lines, on the first call of each
// of these routes; their schemas now go to the reference only (src/api/docs/meta.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

let m: MoatProcess;
beforeAll(async () => {
  m = await startMoat({ env: { FTLCONF_webserver_api_password: "" } });
});
afterAll(async () => {
  await m?.dispose();
});

test("the replies with %-keys are sent whole and the log stays free of library dumps", async () => {
  const ftl = (await (await m.api("/api/info/ftl")).json()) as { ftl: Record<string, unknown> };
  expect(typeof ftl.ftl["%mem"]).toBe("number");
  expect(typeof ftl.ftl["%cpu"]).toBe("number");
  const sys = (await (await m.api("/api/info/system")).json()) as {
    system: { memory: { ram: Record<string, unknown> } };
  };
  expect(typeof sys.system.memory.ram["%used"]).toBe("number");
  const padd = (await (await m.api("/api/padd")).json()) as Record<string, unknown>;
  expect(typeof padd["%mem"]).toBe("number");
  // a second round: Elysia compiles each reply's cleaner on first use
  for (const p of ["/api/info/ftl", "/api/info/system", "/api/padd"]) expect((await m.api(p)).status).toBe(200);
  // the output is read from a pipe: give it a moment to arrive
  const out = await m.outputWith("exactMirror", 1000);
  const dump = out.indexOf("Please report");
  expect(dump, out.slice(Math.max(0, dump - 100), dump + 300)).toBe(-1);
  // the reference still documents these replies, %-keys included
  const doc = (await (await m.api("/api/docs/json")).json()) as { paths: Record<string, any> };
  for (const [path, key] of [
    ["/api/info/ftl", "%mem"],
    ["/api/info/system", "%used"],
    ["/api/padd", "%cpu"],
  ] as const) {
    const schema = doc.paths[path]?.get?.responses?.["200"]?.content?.["application/json"]?.schema;
    expect(JSON.stringify(schema ?? null), path).toContain(`"${key}"`);
  }
  // nothing but Moat's own lines: each is timestamped or starts with "moat:"
  const foreign = out.split("\n").filter((l) => l.trim() && !/^\[\d{4}-|^moat: /.test(l));
  expect(foreign).toEqual([]);
});
