import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { execStartOf, PACKAGED_BINARY, unitFor } from "./unit.ts";

const IMAGE_UNIT = readFileSync(join(import.meta.dir, "../../../image/rootfs/etc/systemd/system/moat.service"), "utf8");

test("the unit is the image's, its ExecStart program replaced and nothing else", () => {
  const unit = unitFor("/usr/local/bin/moat");
  expect(execStartOf(unit)).toBe("/usr/local/bin/moat");
  expect(unit).toContain("ExecStart=/usr/local/bin/moat serve --data-dir /etc/moat\n");
  expect(unit.replace("/usr/local/bin/moat", PACKAGED_BINARY)).toBe(IMAGE_UNIT);
  // the image's hardening travels with it, and the nice limit that lets misc.nice's -10 be set
  for (const line of [
    "User=moat",
    "AmbientCapabilities=CAP_NET_BIND_SERVICE CAP_NET_RAW",
    "ProtectSystem=strict",
    "LimitNICE=-20",
  ])
    expect(unit).toContain(`${line}\n`);
  expect(unitFor(PACKAGED_BINARY)).toBe(IMAGE_UNIT);
});

test("a binary path systemd would split or resolve elsewhere is refused, as is a unit without one ExecStart", () => {
  expect(() => unitFor("moat")).toThrow("absolute");
  expect(() => unitFor("/opt/my moat/moat")).toThrow("without spaces");
  expect(() => unitFor("/opt/moat/moat", "[Service]\nType=simple\n")).toThrow("one ExecStart line, it has 0");
  expect(execStartOf("[Service]\nExecStart=-/usr/bin/moat serve\n")).toBe("/usr/bin/moat");
  expect(execStartOf("[Service]\n")).toBeNull();
});
