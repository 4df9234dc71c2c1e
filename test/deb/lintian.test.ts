// lintian on the package scripts/build-deb.sh builds: no errors (it exits 2 when it reports one). The Bun
// binary's findings are overridden with their reasons in scripts/deb/lintian-overrides.
import { expect, test } from "bun:test";
import { run } from "../harness/moat.ts";
import { debPackage } from "./system.ts";

test("lintian reports no errors on the package", async () => {
  const deb = await debPackage();
  const r = await run(["lintian", "--allow-root", "--no-tag-display-limit", deb]);
  expect(r.stdout.split("\n").filter((l) => l.startsWith("E:"))).toEqual([]);
  expect(r.code).toBe(0);
}, 600_000);
