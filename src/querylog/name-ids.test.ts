import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { type Learnt, NameIds } from "./name-ids.ts";

function table(maxIds = 100_000): { db: Database; names: NameIds } {
  const db = new Database(":memory:", { strict: true });
  db.exec("CREATE TABLE domain_by_id (id INTEGER PRIMARY KEY, domain TEXT NOT NULL)");
  db.exec("CREATE UNIQUE INDEX domain_by_id_domain_idx ON domain_by_id (domain)");
  const names = new NameIds(
    db,
    {
      select: "SELECT id FROM domain_by_id WHERE domain = ?",
      insert: "INSERT OR IGNORE INTO domain_by_id (domain) VALUES (?)",
      args: (name) => [name],
      unique: true,
    },
    maxIds,
  );
  names.complete = true;
  return { db, names };
}

const idOf = (db: Database, name: string) =>
  (db.query("SELECT id FROM domain_by_id WHERE domain = ?").get(name) as { id: number } | null)?.id;
const rows = (db: Database) => (db.query("SELECT COUNT(*) AS n FROM domain_by_id").get() as { n: number }).n;

/** Every name's id looked up where it lies in one text, as the writer reads a batch. */
function lookUp(names: NameIds, list: string[], learnt: Learnt = []): number[] {
  const text = list.join("");
  const ids: number[] = [];
  for (let i = 0, at = 0; i < list.length; at += list[i]!.length, i++)
    ids.push(names.idAt(text, at, list[i]!.length, learnt));
  return ids;
}

test("each name has its table's id, inserted once; names that share a beginning or a hash slot are told apart", () => {
  const { db, names } = table();
  // 5,000 names make the slots grow several times; prefixes and lengths overlap
  const list = Array.from({ length: 5_000 }, (_, i) => `${i % 7 ? "a" : "ab"}${i}.example`);
  const first = lookUp(names, list);
  const again = lookUp(names, [...list].reverse()).reverse();
  expect(again).toEqual(first);
  expect(rows(db)).toBe(5_000);
  for (const [i, name] of list.entries()) expect(first[i]).toBe(idOf(db, name)!);
  expect(lookUp(names, ["a1.example", "a1.exampl", "a1.examplf", ""])).toEqual([
    idOf(db, "a1.example")!,
    idOf(db, "a1.exampl")!,
    idOf(db, "a1.examplf")!,
    idOf(db, "")!,
  ]);
  expect(new Set(lookUp(names, ["a1.exampl", "a1.examplf", ""])).size).toBe(3);
  // two names of one length with one FNV-1a hash: only their characters tell them apart
  const pair = ["c1062789.test", "c1279192.test"];
  expect(lookUp(names, [...pair, ...pair])).toEqual([
    idOf(db, pair[0]!)!,
    idOf(db, pair[1]!)!,
    idOf(db, pair[0]!)!,
    idOf(db, pair[1]!)!,
  ]);
  expect(idOf(db, pair[0]!)).not.toBe(idOf(db, pair[1]!));
});

test("a name beyond Latin-1 and an id beyond 32 bits are looked up in the table each time, not mixed up", () => {
  const { db, names } = table();
  db.run("INSERT INTO domain_by_id (id, domain) VALUES (?, 'big.example')", [2 ** 40]);
  names.complete = false; // the table has a name the cache was not given
  const list = ["bücher.example", "例え.jp", "big.example", "b\u00fccher.example"];
  const ids = lookUp(names, list);
  expect(ids).toEqual([idOf(db, "bücher.example")!, idOf(db, "例え.jp")!, 2 ** 40, idOf(db, "bücher.example")!]);
  expect(lookUp(names, list)).toEqual(ids);
  expect(rows(db)).toBe(3);
});

test("a full cache drops names, and dropped or forgotten names are asked of the table again", () => {
  const { db, names } = table(3);
  const list = ["one.test", "two.test", "three.test", "four.test", "five.test"];
  const ids = lookUp(names, list);
  expect(names.size).toBeLessThanOrEqual(3);
  expect(lookUp(names, list)).toEqual(ids);
  const learnt: Learnt = [];
  const [six] = lookUp(names, ["six.test"], learnt);
  expect(learnt.map(([, n]) => n)).toEqual(["six.test"]);
  // the transaction that added it failed: its row is gone and a later one gets the id anew
  db.run("DELETE FROM domain_by_id WHERE domain = 'six.test'");
  names.forget(new Set(["six.test"]));
  db.run("INSERT INTO domain_by_id (id, domain) VALUES (?, 'other.test')", [six!]);
  expect(lookUp(names, ["six.test"])).toEqual([idOf(db, "six.test")!]);
  expect(idOf(db, "six.test")).not.toBe(six);
  expect(rows(db)).toBe(7);
});

test("a name in use stays cached while the cache fills with others: it is not asked of the table again", () => {
  const { db, names } = table(8);
  const [hot] = lookUp(names, ["hot.test"]);
  // its row's id changed behind the cache's back: a lookup that asks the table sees the new one
  db.run("UPDATE domain_by_id SET id = 1000000 WHERE domain = 'hot.test'");
  for (let i = 0; i < 100; i++) expect(lookUp(names, [`cold${i}.test`, "hot.test"])[1]).toBe(hot!);
  expect(names.size).toBeLessThanOrEqual(8);
  // a name not asked since the cache turned twice is asked of the table again
  expect(lookUp(names, ["cold0.test"])).toEqual([idOf(db, "cold0.test")!]);
  db.run("UPDATE domain_by_id SET id = 2000000 WHERE domain = 'cold1.test'");
  expect(lookUp(names, ["cold1.test"])).toEqual([2000000]);
  expect(rows(db)).toBe(101);
});
