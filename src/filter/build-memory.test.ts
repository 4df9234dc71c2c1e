// A gravity run's builders keep their records and nodes in a mapped file of the data directory
// (build-memory.ts): the set they build is byte for byte the one the heap gives, the snapshot file is
// read back mapped, and a directory that cannot hold the file leaves the build in the heap.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileMemory, heapMemory, type BuildMemory } from "./build-memory.ts";
import { ComboTable, DomainSetBuilder, WireScratch } from "./domainset-build.ts";
import { DomainSet, hashName, resolveCombos, type DomainSetShape } from "./domainset.ts";
import { readSnapshotFile, writeSnapshotFile } from "./snapshot-file.ts";
import { countLines } from "./gravity/parse.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-build-memory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scratch = new WireScratch();
// enough names for several 1 MiB record chunks and a node buffer past the mapped minimum
const names = Array.from({ length: 150_000 }, (_, i) => `n${i}.sub${i % 5000}.list${i % 7}.test`);

function build(memory: BuildMemory): { shape: DomainSetShape; empty: DomainSetShape } {
  const b = new DomainSetBuilder(new ComboTable(), 16, memory);
  names.forEach((n, i) => b.add(scratch.encode(n)!, 1 + (i % 3)));
  // a repeat from another list: a second combo, written into a record that may be mapped
  b.add(scratch.encode(names[7]!)!, 9);
  return { shape: b.finish(false), empty: new DomainSetBuilder(new ComboTable(), 16, memory).finish(false) };
}

function write(name: string, memory: BuildMemory): string {
  const { shape, empty } = build(memory);
  const path = join(dir, name);
  writeSnapshotFile(path, "k", { gravity: shape, gravityAbp: empty, antigravity: empty, antigravityAbp: empty });
  return path;
}

test("a set built in a mapped file is the heap's, byte for byte, and is read back mapped", () => {
  const memory = new FileMemory(dir);
  const mapped = write("mapped.snapshot", memory);
  memory.close();
  // the records and nodes were handed out as mappings, and the file itself is gone from the directory
  expect(memory.mapped).toBeGreaterThanOrEqual(2 << 20);
  expect(readdirSync(dir).filter((f) => f.startsWith("gravity.build"))).toEqual([]);
  const heap = write("heap.snapshot", heapMemory);
  expect(Buffer.compare(readFileSync(mapped), readFileSync(heap))).toBe(0);

  const sets = readSnapshotFile(mapped, "k")!;
  const maps = readFileSync("/proc/self/maps", "utf8");
  expect(maps).toContain(mapped);
  const set = new DomainSet(resolveCombos(sets.gravity, 1, () => Uint32Array.of(1)));
  expect(set.size).toBe(names.length);
  for (const n of [names[0]!, names[7]!, names.at(-1)!]) {
    const w = scratch.encode(n)!;
    expect(set.find(w, hashName(w))).toBeGreaterThanOrEqual(0);
  }
  const miss = scratch.encode("n1.sub2.list1.test")!;
  expect(set.find(miss, hashName(miss))).toBe(-1);
  expect(readSnapshotFile(mapped, "another key")).toBeNull();
});

test("a directory that cannot hold the file leaves the build in the heap", () => {
  const memory = new FileMemory(join(dir, "no such directory"));
  const path = write("fallback.snapshot", memory);
  expect(memory.mapped).toBe(0);
  expect(readSnapshotFile(path, "k")!.gravity.count).toBe(names.length);
});

test("countLines tells the ABP lines from the others, so each set is sized once", () => {
  const file = join(dir, "list.txt");
  writeFileSync(file, "# comment\n||a.test^\n0.0.0.0 b.test\n||c.test^\nd.test\n@@||e.test^");
  expect(countLines(file, "||")).toEqual({ lines: 6, abp: 2 });
  expect(countLines(file, "@@||")).toEqual({ lines: 6, abp: 1 });
  // a file of one ABP line without a newline
  writeFileSync(file, "||x.test^");
  expect(countLines(file, "||")).toEqual({ lines: 1, abp: 1 });
});
