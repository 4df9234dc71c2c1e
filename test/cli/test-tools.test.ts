// `npm test` on a fresh machine: its pretest (scripts/install-test-tools.sh, also run by .ci/run)
// installs the Debian tools of .ci/packages.txt as root, and otherwise stops before any test with one
// line naming what to install. The root path runs apt-get, so these run the script as nobody.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../harness/moat.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-tools-"));
chmodSync(dir, 0o755);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runAsNobody(list: string, env: Record<string, string> = {}) {
  const file = join(dir, `list-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(file, list, { mode: 0o644 });
  const p = Bun.spawnSync(
    ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "bash", "scripts/install-test-tools.sh"],
    { cwd: ROOT, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", MOAT_TEST_TOOLS_LIST: file, ...env } },
  );
  return { rc: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

const LIST = "# command package\nbash bash\nmoat-no-such-tool moat-no-such-package\n";

test("npm test runs the check of the test tools before any test", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
  expect(pkg.scripts.pretest).toBe("bash scripts/install-test-tools.sh");
  expect(readFileSync(join(ROOT, ".ci/run"), "utf8")).toContain("bash scripts/install-test-tools.sh");
});

test("a missing tool, not root: one line naming the package, exit 1", () => {
  const r = runAsNobody(LIST);
  expect(r.rc).toBe(1);
  expect(r.out).toBe("");
  expect(r.err.trim().split("\n")).toHaveLength(1);
  expect(r.err).toContain("apt-get install moat-no-such-package");
});

test("for .ci/run (MOAT_TEST_TOOLS=warn) the same line is a warning and the run goes on", () => {
  const r = runAsNobody(LIST, { MOAT_TEST_TOOLS: "warn" });
  expect(r.rc).toBe(0);
  expect(r.out).toStartWith("warning: the tests need these Debian packages: moat-no-such-package");
});

test("nothing missing: silent, exit 0", () => {
  expect(runAsNobody("bash bash\n/bin/sh sh\n")).toEqual({ rc: 0, out: "", err: "" });
});
