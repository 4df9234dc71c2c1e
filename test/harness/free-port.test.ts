// freePort() never hands out a port twice while its holder lives: not within one test process (two
// draws before the first server binds) and not across the test processes of several checkouts that run
// at once on one machine. 600 draws on each side: with draws unreserved among its 22000 ports, about 8
// repeats within a process and 16 shared with the other are expected.
import { expect, test } from "bun:test";
import { BUN, freePort, ROOT, run } from "./moat.ts";

const DRAWS = 600;

test("the ports drawn in one process and in another running at once are all different", async () => {
  const mine: number[] = [];
  for (let i = 0; i < DRAWS; i++) mine.push(await freePort());
  expect(new Set(mine).size).toBe(DRAWS);
  const other = await run([
    BUN,
    "-e",
    `import { freePort } from "${ROOT}/test/harness/moat.ts";
     const ports = [];
     for (let i = 0; i < ${DRAWS}; i++) ports.push(await freePort());
     console.log(JSON.stringify(ports));`,
  ]);
  expect(other.stderr).toBe("");
  const theirs = JSON.parse(other.stdout) as number[];
  expect(theirs.length).toBe(DRAWS);
  expect(theirs.filter((p) => mine.includes(p))).toEqual([]);
}, 60000);
