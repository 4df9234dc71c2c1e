import { expect, test } from "bun:test";
import { NameTable } from "./names.ts";

test("names: ids follow a Map model through inserts, releases, reuse, rehashes and compactions", () => {
  const t = new NameTable();
  const model = new Map<string, number>();
  let seed = 7;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed % n);
  const nameOf = (k: number) => (k % 11 === 0 ? `ünï-${k}.bücher.example` : `host-${k}.example${k % 13}.com`);
  for (let step = 0; step < 200_000; step++) {
    const k = rnd(30_000);
    const name = nameOf(k);
    if (rnd(3) === 0 && model.has(name)) {
      t.release(model.get(name)!);
      model.delete(name);
      expect(t.find(name)).toBe(-1);
    } else {
      const id = t.id(name);
      if (model.has(name)) expect(id).toBe(model.get(name)!);
      else {
        // a new name takes an id no live name holds
        if (step % 997 === 0) expect([...model.values()].includes(id)).toBe(false);
        model.set(name, id);
      }
    }
  }
  expect(t.size).toBe(model.size);
  for (const [name, id] of model) {
    expect(t.find(name)).toBe(id);
    expect(t.has(id)).toBe(true);
    expect(t.name(id)).toBe(name);
  }
  const seen = new Set<number>();
  t.forEachId((id) => seen.add(id));
  expect(seen).toEqual(new Set(model.values()));
  expect(new Set(model.values()).size).toBe(model.size);
});

test("names: released bytes are reclaimed, so a window of changing names stays bounded", () => {
  const t = new NameTable();
  const live: number[] = [];
  for (let i = 0; i < 500_000; i++) {
    live.push(t.id(`n${i}.rotating.example`));
    if (live.length > 1000) t.release(live.shift()!);
  }
  expect(t.size).toBe(1000);
  expect(t.bytes()).toBeLessThan(512 * 1024);
  expect(t.name(live.at(-1)!)).toBe("n499999.rotating.example");
});

test("names: empty, long and non-ASCII names round-trip", () => {
  const t = new NameTable();
  for (const n of ["", "a", "x".repeat(253), "日本.jp", "hidden", "0.0.0.0"]) expect(t.name(t.id(n))).toBe(n);
  expect(t.find("nothere.example")).toBe(-1);
});

test("names: an arena that grows with nothing released keeps every name whole", () => {
  const t = new NameTable();
  const ids: number[] = [];
  // ~1.5 MiB of names: the arena (64 KiB at first) grows five times without a release
  for (let i = 0; i < 80_000; i++) ids.push(t.id(`grow-${i}.example.net`));
  for (let i = 0; i < 80_000; i += 1) {
    expect(t.name(ids[i]!)).toBe(`grow-${i}.example.net`);
    expect(t.find(`grow-${i}.example.net`)).toBe(ids[i]!);
  }
});
