// `npm run build` gives one binary that needs nothing beside it: run it from an empty directory
// and check the API, the docs page and its assets, and that the filter worker inside it blocks (with
// two DNS threads, so the DNS thread's worker is inside it as well).
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUN, ROOT, freePort, run } from "./harness/moat.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-build-"));
let proc: ReturnType<typeof Bun.spawn> | undefined;
afterAll(async () => {
  proc?.kill("SIGTERM");
  await proc?.exited;
  rmSync(dir, { recursive: true, force: true });
});

test("the compiled binary serves the API, the docs and filtered DNS on its own", async () => {
  const bin = join(dir, "moat");
  const b = await run([BUN, join(ROOT, "scripts/build.ts"), "--outfile", bin]);
  expect(b.code).toBe(0);
  const [http, dns] = [await freePort(), await freePort()];
  proc = Bun.spawn([bin, "serve", "--data-dir", join(dir, "data")], {
    cwd: dir, // nothing of the checkout beside it
    // two DNS threads: the DNS thread's worker module must be inside the binary too
    env: {
      PATH: "/usr/bin:/bin",
      FTLCONF_webserver_port: `127.0.0.1:${http}`,
      FTLCONF_dns_port: String(dns),
      FTLCONF_dns_threads: "2",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const base = `http://127.0.0.1:${http}`;
  const deadline = Date.now() + 20000;
  let up = false;
  while (!up && Date.now() < deadline) {
    up = await fetch(`${base}/api/info/login`).then(
      (r) => r.ok,
      () => false,
    );
    if (!up) await Bun.sleep(100);
  }
  expect(up).toBe(true);
  const docs = await fetch(`${base}/api/docs`);
  expect(docs.status).toBe(200);
  expect(await docs.text()).toContain("<code>/api/auth</code>");
  const admin = await fetch(`${base}/admin/`);
  expect(admin.status).toBe(200);
  const script = /src="(\/admin\/assets\/[^"]+\.js)"/.exec(await admin.text())?.[1];
  expect(script).toBeDefined();
  expect((await fetch(base + script)).status).toBe(200);
  const v = (await (await fetch(`${base}/api/info/version`)).json()) as { version: { moat: { commit: string } } };
  expect(v.version.moat.commit).toMatch(/^[0-9a-f]{8}$|^unknown$/);

  const add = await fetch(`${base}/api/domains/deny/exact`, {
    method: "POST",
    body: JSON.stringify({ domain: "ads.example" }),
  });
  expect(add.status).toBe(201);
  let answer = "";
  const until = Date.now() + 10000;
  while (answer !== "0.0.0.0" && Date.now() < until) {
    answer = (
      await run(["dig", "+short", "+time=1", "+tries=1", "-p", String(dns), "@127.0.0.1", "ads.example"])
    ).stdout.trim();
    if (answer !== "0.0.0.0") await Bun.sleep(200);
  }
  expect(answer).toBe("0.0.0.0");
}, 60000);

test("a build may set the version (MOAT_BUILD_VERSION), else it is package.json's", async () => {
  const versionOf = async (define: string[]) => {
    const out = join(dir, `version-${define.length}.js`);
    const b = await run([BUN, "build", "--target=bun", ...define, join(ROOT, "src/core/version.ts"), "--outfile", out]);
    expect(b.code).toBe(0);
    const r = await run([BUN, "-e", `import { versionInfo } from "${out}"; console.log(versionInfo().version)`]);
    return r.stdout.trim();
  };
  const pkg = (await Bun.file(join(ROOT, "package.json")).json()) as { version: string };
  expect(await versionOf(['--define=MOAT_BUILD_VERSION="0.1.1-test"'])).toBe("v0.1.1-test");
  expect(await versionOf([])).toBe(`v${pkg.version}`);
});
