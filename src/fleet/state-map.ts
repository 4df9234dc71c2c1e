// A replicated piece of state is a flat map from key to JSON value ("domainlist/7" -> row,
// "dns.upstreams" -> ["9.9.9.9"]). Flat maps hash the same on every node (keys sorted) and merge
// three ways per key, so two nodes that changed different entries at the same time both keep
// their change, and two that changed the same entry end alike (the later publisher wins).

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

const same = (a: unknown, b: unknown) => (a === undefined || b === undefined ? a === b : canonical(a) === canonical(b));

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
