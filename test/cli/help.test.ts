// The command line's help through the real CLI: every command's own help, the version, and the README's
// list of commands written from the same table (src/commands.ts).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, ROOT, run } from "../harness/moat.ts";
import { COMMANDS, commandList } from "../../src/commands.ts";

const moat = (...args: string[]) => run([BUN, join(ROOT, "src/main.ts"), ...args]);

test("moat --help lists every command; moat <command> --help and moat help <command> print that command's help", async () => {
  const all = await moat("--help");
  expect(all.code).toBe(0);
  for (const c of COMMANDS) expect(all.stdout).toContain(`moat ${c.name}`);
  for (const c of COMMANDS) {
    const own = await moat(c.name, "--help");
    expect({ name: c.name, code: own.code, stderr: own.stderr }).toEqual({ name: c.name, code: 0, stderr: "" });
    expect(own.stdout.startsWith(`usage: moat ${c.name}`)).toBe(true);
    expect(own.stdout).toContain(c.details.split("\n")[0]!);
    // the command's help is not the general one
    expect(own.stdout).not.toContain("usage: moat <command>");
  }
  const viaHelp = await moat("help", "teleporter");
  expect(viaHelp.stdout).toBe((await moat("teleporter", "-h")).stdout);
  const unknown = await moat("help", "frobnicate");
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toStartWith('moat: unknown command "frobnicate"');
});

test("--version and -v print the version like moat version", async () => {
  const v = await moat("version");
  expect(v.code).toBe(0);
  expect(v.stdout).toMatch(/^moat v?\d+\.\d+\.\d+ /);
  // run from source, the build date is the moment of the run: compare up to it
  const head = (text: string) => text.split(",")[0];
  expect(head((await moat("--version")).stdout)).toBe(head(v.stdout));
  expect(head((await moat("-v")).stdout)).toBe(head(v.stdout));
});

test("the README's command list is the one moat --help prints", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  expect(readme).toContain(`\`\`\`\n${commandList()}\n\`\`\``);
});
