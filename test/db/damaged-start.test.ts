// A database damaged inside (a failing SD card) no longer holds DNS back at start: Moat answers at
// once, checks both files behind it (src/db/integrity.ts) and says which one is damaged and what to
// do, in the log and in /api/info/messages; once the file is replaced, the message goes.
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type MoatProcess, startMoat } from "../harness/moat.ts";
import { ask, firstAddress, until } from "../dns/helpers.ts";
import { damageTable } from "./damage.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-damaged-"));
let moat: MoatProcess | undefined;
afterAll(async () => {
  await moat?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const configToml = `[dns]\nhosts = ["10.9.8.7 still.answers.test"]\n`;

interface Listed {
  messages: Array<{ type: string; plain: string }>;
}
const damagedMessages = async (m: MoatProcess) =>
  ((await (await m.api("/api/info/messages")).json()) as Listed).messages.filter((x) => x.type === "DATABASE_DAMAGED");

test("a damaged gravity.db: DNS answers, the damage is said with what to do, and it goes once the file is replaced", async () => {
  moat = await startMoat({ dataDir: dir, configToml });
  await moat.stop();
  // a table no start-up step reads, as large as a list's: only the integrity check reads it all
  const gravity = join(dir, "gravity.db");
  const db = new Database(gravity);
  db.exec("CREATE TABLE damaged_here (id INTEGER PRIMARY KEY, v BLOB)");
  db.transaction(() => {
    for (let i = 0; i < 2000; i++) db.query("INSERT INTO damaged_here (v) VALUES (randomblob(200))").run();
  })();
  db.close();
  damageTable(gravity, "damaged_here");

  moat = await startMoat({ dataDir: dir, configToml });
  const r = await ask(moat.dnsPort, "still.answers.test");
  expect(r.rcode).toBe("NOERROR");
  expect(r.msg.type).toBe("response");
  expect(r.msg.questions?.[0]?.name).toBe("still.answers.test");
  expect(firstAddress(r)).toBe("10.9.8.7");

  await until(async () => (await damagedMessages(moat!)).length > 0, 15_000, "the damage message");
  const [msg, ...more] = await damagedMessages(moat);
  expect(more).toEqual([]);
  expect(msg!.plain).toContain(`The gravity database ${gravity} is damaged`);
  expect(msg!.plain).toMatch(/integrity check: Tree \d+ page \d+/);
  expect(msg!.plain).toContain("run gravity");
  expect(await moat.outputWith(`ERROR The gravity database ${gravity} is damaged`)).toContain(
    `ERROR The gravity database ${gravity} is damaged`,
  );
  // a restart does not say it twice
  await moat.stop();
  moat = await startMoat({ dataDir: dir, configToml });
  await moat.outputWith("is damaged", 15_000);
  await Bun.sleep(300);
  expect(await damagedMessages(moat)).toHaveLength(1);

  // moved away: a fresh gravity.db, and the message goes
  await moat.stop();
  renameSync(gravity, `${gravity}.damaged`);
  rmSync(`${gravity}-wal`, { force: true });
  rmSync(`${gravity}-shm`, { force: true });
  moat = await startMoat({ dataDir: dir, configToml });
  await until(async () => (await damagedMessages(moat!)).length === 0, 15_000, "the message to go");
  expect(firstAddress(await ask(moat.dnsPort, "still.answers.test"))).toBe("10.9.8.7");
});
