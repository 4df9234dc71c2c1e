// What the answer cache's store costs the DNS thread's young collections: a Map of the answers
// (what the cache kept before) against src/dns/cache-ring.ts (pages of slots behind a Map of
// numbers) and src/dns/shared-answers.ts (the table all DNS threads share, outside the heap), each
// under the same churn for a few seconds: per-query garbage, and a third of the
// queries storing a fresh answer over an old one. Each variant runs in a child with BUN_JSC_logGC=1;
// the eden pauses come from bench/mix/gclog.ts's reading of that log. Also prints the time of the
// lookups and stores alone.
// Usage: bun bench/dns/cache-gc.ts [--sizes 10000,100000] [--seconds 4]
import { parseArgs } from "node:util";
import { CacheRing } from "../../src/dns/cache-ring.ts";
import { SharedAnswers, sharedAnswersBuffer } from "../../src/dns/shared-answers.ts";
import { collections } from "../mix/gclog.ts";

const { values: opt } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    seconds: { type: "string", default: "4" },
    child: { type: "string" },
    size: { type: "string" },
  },
});

interface Store {
  get(k: number): Uint8Array | undefined;
  put(k: number, v: Uint8Array): void;
}

function mapStore(max: number): Store {
  const m = new Map<number, Uint8Array>();
  let oldest: MapIterator<number> | null = null;
  return {
    get: (k) => m.get(k),
    put: (k, v) => {
      if (m.has(k)) m.delete(k);
      else if (m.size >= max) {
        let first = oldest?.next();
        if (!first || first.done) {
          oldest = m.keys();
          first = oldest.next();
        }
        if (!first.done) m.delete(first.value);
      }
      m.set(k, v);
    },
  };
}

function ringStore(max: number): Store {
  const r = new CacheRing<Uint8Array, string[]>(max);
  return { get: (k) => r.get(k), put: (k, v) => void r.set(k, v, null) };
}

/** The shared table: a store packs the answer into a slot, a hit copies the slot into the thread's buffer. */
function sharedStore(max: number): Store {
  const t = new SharedAnswers(sharedAnswersBuffer(max));
  const key = new Uint8Array(4);
  const keyOf = (k: number) => {
    for (let i = 0; i < 4; i++) key[i] = (k >>> (8 * i)) & 0xff;
  };
  const fields = { storedAt: 0, ttl: 300, reply: 0, upstreamBlocked: null, dnssec: 0, upstream: 0 };
  return {
    get: (k) => (keyOf(k), t.lookup(k * 2654435761, key, 4) ? t.entry : undefined),
    put: (k, v) => void (keyOf(k), t.store(k * 2654435761, v, [], fields, key, 4, null)),
  };
}

const storeOf = (kind: string, max: number): Store =>
  kind === "map" ? mapStore(max) : kind === "ring" ? ringStore(max) : sharedStore(max);

async function child(kind: string, max: number, seconds: number): Promise<void> {
  const store = storeOf(kind, max);
  for (let k = 0; k < max; k++) store.put(k, new Uint8Array(100));
  let seed = 1;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed % n);
  let sink: unknown = null;
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 1000; i++) {
      // a query's own garbage
      sink = { q: new Uint8Array(64), name: `q${i}` };
      const k = rnd(max * 2);
      if (i % 3 === 0) store.put(k, new Uint8Array(100));
      else sink = store.get(k) ?? sink;
    }
    await new Promise((r) => setImmediate(r));
  }
  void sink;
}

function timed(kind: string, max: number): number {
  const store = storeOf(kind, max);
  const values = Array.from({ length: 1000 }, () => new Uint8Array(80));
  let seed = 1;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), seed % n);
  const t = performance.now();
  for (let i = 0; i < 3_000_000; i++) {
    const k = rnd(max * 4);
    if (store.get(k) === undefined) store.put(k, values[i % 1000]!);
  }
  return ((performance.now() - t) * 1000) / 3_000_000;
}

if (opt.child) await child(opt.child, Number(opt.size), Number(opt.seconds));
else {
  const at = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;
  for (const size of opt.sizes.split(",").map(Number)) {
    for (const kind of ["map", "ring", "shared"]) {
      const p = Bun.spawn(
        [process.execPath, import.meta.path, "--child", kind, "--size", String(size), "--seconds", opt.seconds],
        { env: { ...process.env, BUN_JSC_logGC: "1" }, stdout: "ignore", stderr: "pipe" },
      );
      const log = await new Response(p.stderr).text();
      await p.exited;
      // the main heap: the one with the most collections
      const byHeap = new Map<string, number[]>();
      for (const c of collections(log))
        if (c.kind === "Eden") byHeap.set(c.heap, [...(byHeap.get(c.heap) ?? []), c.pauseMs]);
      const pauses = [...byHeap.values()].sort((a, b) => b.length - a.length)[0]?.sort((a, b) => a - b) ?? [];
      console.log(
        `${String(size).padStart(7)} entries, ${kind.padEnd(6)}: ${pauses.length} eden collections, pause p50 / p90 ${at(pauses, 0.5).toFixed(1)} / ${at(pauses, 0.9).toFixed(1)} ms; a lookup or store ${timed(kind, size).toFixed(3)} µs`,
      );
    }
  }
}
