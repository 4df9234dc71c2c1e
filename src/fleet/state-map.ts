// A replicated piece of state is a flat map from key to JSON value ("domainlist/7" -> row,
// "dns.upstreams" -> ["9.9.9.9"]). Flat maps hash the same on every node (keys sorted) and merge
// three ways per key, so two nodes that changed different entries at the same time both keep
// their change, and two that changed the same entry end alike (the later publisher wins). What a
// change carries between nodes is a delta: the keys it sets and the keys it removes.

export type StateMap = Record<string, unknown>;

/** JSON with object keys sorted, so equal maps give equal text on every node. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

export function hashOf(map: StateMap): string {
  return new Bun.CryptoHasher("sha256").update(canonical(map)).digest("hex");
}

/** What one version changed: keys set (to their new value) and keys removed. */
export interface Delta {
  set: StateMap;
  del: string[];
}

// the same object is the same value (maps share the values a delta did not touch), else compare the text
const same = (a: unknown, b: unknown) =>
  a === b || (a === undefined || b === undefined ? false : canonical(a) === canonical(b));

/** What turns `from` into `to`. A key whose value is undefined counts as absent (as in `canonical`). */
export function diff(from: StateMap, to: StateMap): Delta {
  const set: StateMap = {};
  const del: string[] = [];
  for (const [k, v] of Object.entries(to)) if (v !== undefined && !same(from[k], v)) set[k] = v;
  for (const [k, v] of Object.entries(from)) if (v !== undefined && to[k] === undefined) del.push(k);
  return { set, del };
}

/** `map` with `delta` applied, as a new map (maps are shared between records: never changed in place). */
export function applyDelta(map: StateMap, delta: Delta): StateMap {
  const out = { ...map };
  for (const [k, v] of Object.entries(delta.set)) out[k] = v;
  for (const k of delta.del) delete out[k];
  return out;
}

/** How many keys a delta touches (for logs). */
export const deltaSize = (delta: Delta): number => Object.keys(delta.set).length + delta.del.length;

/**
 * Three-way merge: for each key, whichever side changed it since `base` wins; when both did, the
 * local side (about to be published with a higher version) wins. A missing key is a deletion.
 */
export function merge3(base: StateMap, local: StateMap, remote: StateMap): StateMap {
  const out: StateMap = {};
  for (const k of new Set([...Object.keys(base), ...Object.keys(local), ...Object.keys(remote)])) {
    const b = base[k];
    const l = local[k];
    const r = remote[k];
    const v = same(l, b) ? r : l;
    if (v !== undefined) out[k] = v;
  }
  return out;
}
