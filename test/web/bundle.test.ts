// The dashboard's first load stays within 100 KB compressed (the page and every file it names),
// and the browser code type-checks with the DOM library (the root project leaves it out).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT, run, startMoat, type MoatProcess } from "../harness/moat.ts";

let moat: MoatProcess;
beforeAll(async () => {
  moat = await startMoat();
});
afterAll(async () => {
  await moat?.dispose();
});

test("first load of the dashboard is at most 100 KB compressed", async () => {
  const get = (p: string) => moat.api(p, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
  const page = await get("/admin/");
  expect(page.headers.get("content-encoding")).toBe("gzip");
  const html = Bun.gunzipSync(new Uint8Array(await page.clone().arrayBuffer()));
  let total = (await page.arrayBuffer()).byteLength;
  const assets = [...new TextDecoder().decode(html).matchAll(/(?:src|href)="(\/admin\/assets\/[^"]+)"/g)].map(
    (m) => m[1]!,
  );
  expect(assets.length).toBe(2); // one script, one stylesheet
  for (const a of assets) {
    const r = await get(a);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toContain("immutable");
    total += (await r.arrayBuffer()).byteLength;
  }
  console.log(`dashboard first load: ${(total / 1024).toFixed(1)} KiB gzip`);
  expect(total).toBeLessThanOrEqual(100 * 1000);
  // a repeat visit revalidates the page and sends nothing more
  const again = await moat.api("/admin/", { headers: { "if-none-match": page.headers.get("etag")! } });
  expect(again.status).toBe(304);
});

test("the browser code type-checks", async () => {
  const r = await run([join(ROOT, "node_modules/.bin/tsc"), "--noEmit", "-p", join(ROOT, "src/web/ui")]);
  expect(r.stdout + r.stderr).toBe("");
  expect(r.code).toBe(0);
}, 60000);
