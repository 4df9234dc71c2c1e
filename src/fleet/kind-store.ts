// How a replicated kind is kept in Redis, so that a change carries only what changed:
//   moat:fleet:head:<kind>    HASH {version, node, at, hash, epoch}: the latest version and who made it
//   moat:fleet:map:<kind>     HASH key -> canonical JSON value: the whole map at that version, for catching up
//   moat:fleet:deltas:<kind>  STREAM, entry id `<version>-0` {base, node, at, hash, delta}: the last LOG_LENGTH
//                             deltas, each from version `base` to its own
// A publish is one Lua script: a compare-and-set on the head's version and epoch, then the delta goes into the
// log, is applied to the map in place (HSET/HDEL) and the head moves on; `PUBLISH` wakes the others. A node
// that knows version v reads the log after v and applies the deltas to what it agreed on; only a node that
// joins, fell behind past the log, or meets a new epoch (a store that restarted empty) fetches the whole
// map. The publisher stores the SHA-256 of the map it means (state-map.ts `hashOf`); a receiver checks the
// map it made against it and fetches the whole map when they differ.
// Older Moats kept each kind as one JSON blob under moat:fleet:kind:<kind>: this format does not read it, so
// to a node of this version such a store looks empty, and the fleet seeds it again (dropping the blob).
import { applyDelta, canonical, type Delta, deltaSize, hashOf, type StateMap } from "./state-map.ts";
import { CHANNEL, COUNTER, PREFIX, type RedisLink } from "./redis-link.ts";

/** how many deltas each kind keeps: a node further behind than this fetches the whole map */
const LOG_LENGTH = 256;

const keysOf = (kind: string) => ({
  head: `${PREFIX}head:${kind}`,
  map: `${PREFIX}map:${kind}`,
  log: `${PREFIX}deltas:${kind}`,
  /** where the JSON-blob format of older Moats kept the kind */
  blob: `${PREFIX}kind:${kind}`,
});

// KEYS: head, map, log, counter, channel, blob. ARGV: expected version, expected epoch, node, at, hash, kind,
// epoch for a new life, delta as JSON (for the log), number of keys set, then key/value pairs, then keys removed.
// A head that is not there (a store that restarted empty, or never held this format) starts a new life of the
// kind with a new epoch: whatever an earlier life left (map, log, an older format's blob) goes, and the
// publisher sends its whole map. The log entry goes in before the map changes: a failing XADD leaves the
// store as it was (a script is not rolled back).
const PUBLISH = `
local h = redis.call('HMGET', KEYS[1], 'version', 'epoch')
local cur = tonumber(h[1] or '0')
if cur ~= tonumber(ARGV[1]) then return 0 end
local e = h[2]
if cur == 0 then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[6])
  e = ARGV[7]
elseif e ~= ARGV[2] then
  return 0
end
local v = redis.call('INCR', KEYS[4])
-- a counter that went missing on its own (evicted) must not take the kind's versions backwards
if v <= cur then v = cur + 1; redis.call('SET', KEYS[4], v) end
if cur > 0 then
  redis.call('XADD', KEYS[3], 'MAXLEN', '${LOG_LENGTH}', v .. '-0', 'base', cur, 'node', ARGV[3], 'at', ARGV[4], 'hash', ARGV[5], 'delta', ARGV[8])
end
local n = tonumber(ARGV[9])
for i = 10, 9 + 2 * n, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
for i = 10 + 2 * n, #ARGV do redis.call('HDEL', KEYS[2], ARGV[i]) end
redis.call('HSET', KEYS[1], 'version', v, 'node', ARGV[3], 'at', ARGV[4], 'hash', ARGV[5], 'epoch', e)
redis.call('PUBLISH', KEYS[5], ARGV[6] .. ' ' .. v .. ' ' .. ARGV[3])
return {v, e}`;

const HEAD_FIELDS = ["version", "node", "at", "hash", "epoch"] as const;

// KEYS: head, log. ARGV: the version the reader knows, its epoch. Head and deltas in one reply, so they belong
// to one moment; deltas only when the reader's epoch is the store's (another life's versions mean nothing).
const SINCE = `
local h = redis.call('HMGET', KEYS[1], ${HEAD_FIELDS.map((f) => `'${f}'`).join(", ")})
if not h[1] then return {} end
if h[5] ~= ARGV[2] or tonumber(h[1]) <= tonumber(ARGV[1]) then return {h} end
return {h, redis.call('XRANGE', KEYS[2], tostring(tonumber(ARGV[1]) + 1), '+', 'COUNT', '${LOG_LENGTH}')}`;

// KEYS: head, map. The head and the whole map in one reply.
const FETCH = `
local h = redis.call('HMGET', KEYS[1], ${HEAD_FIELDS.map((f) => `'${f}'`).join(", ")})
if not h[1] then return {} end
return {h, redis.call('HGETALL', KEYS[2])}`;

export interface Head {
  version: number;
  node: string;
  /** ms since epoch */
  at: number;
  /** SHA-256 of the whole map at this version */
  hash: string;
  /** the life of the store this version belongs to */
  epoch: string;
}

/** The fleet's state of a kind, and how this node came by it. */
export interface Remote extends Head {
  data: StateMap;
  /** "known": the version this node holds; "deltas": its map with the log applied; "whole": fetched */
  via: "known" | "deltas" | "whole";
  /** keys the applied deltas touched ("deltas" only) */
  changed: number;
}

/** What this node agreed on last: a version of one life of the store, and the map it had then. */
export interface Known {
  version: number;
  epoch?: string;
  base: StateMap;
}

class HashMismatch extends Error {}

type Reply = Array<string | null>;

const headOf = (h: Reply | undefined): Head | null =>
  h?.[0]
    ? { version: Number(h[0]), node: h[1] ?? "", at: Number(h[2] ?? 0), hash: h[3] ?? "", epoch: h[4] ?? "" }
    : null;

/** A flat [field, value, field, value, …] reply (HGETALL, a stream entry's fields) as pairs. */
function pairsOf(flat: unknown): Array<[string, string]> {
  if (!Array.isArray(flat)) return Object.entries((flat ?? {}) as Record<string, string>);
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([String(flat[i]), String(flat[i + 1])]);
  return out;
}

export class KindStore {
  constructor(private readonly link: RedisLink) {}

  async head(kind: string): Promise<Head | null> {
    const k = keysOf(kind);
    return headOf((await this.link.send("HMGET", [k.head, ...HEAD_FIELDS])) as Reply);
  }

  /**
   * The fleet's state of `kind`: the version this node knows, that version with the deltas logged since
   * (checked against the stored hash), or, to catch up, the whole map. Null when the store holds none.
   */
  async since(kind: string, known: Known | null): Promise<Remote | null> {
    if (known) {
      const k = keysOf(kind);
      const [h, entries] = (await this.link.send("EVAL", [
        SINCE,
        "2",
        k.head,
        k.log,
        String(known.version),
        known.epoch ?? "",
      ])) as [Reply?, unknown[]?];
      const head = headOf(h);
      if (!head) return null;
      if (head.epoch === known.epoch && head.version === known.version)
        return { ...head, data: known.base, via: "known", changed: 0 };
      const caught = entries && caughtUp(known, head, entries);
      if (caught) return caught;
    }
    return this.fetch(kind);
  }

  /** The whole stored map of a kind, checked against its hash. */
  private async fetch(kind: string): Promise<Remote | null> {
    const k = keysOf(kind);
    const [h, flat] = (await this.link.send("EVAL", [FETCH, "2", k.head, k.map])) as [Reply?, unknown?];
    const head = headOf(h);
    if (!head) return null;
    const data: StateMap = {};
    for (const [key, value] of pairsOf(flat)) data[key] = JSON.parse(value);
    if (hashOf(data) !== head.hash)
      throw new HashMismatch(`fleet ${kind} version ${head.version}: stored data does not match its hash`);
    return { ...head, data, via: "whole", changed: 0 };
  }

  /**
   * Publishes `delta` (from the version `basedOn`, or from nothing to seed the store) as the next version if
   * the stored one is still `basedOn`; `hash` is that of the whole map it makes. Returns the new head, or 0.
   */
  async publish(
    kind: string,
    basedOn: { version: number; epoch: string } | null,
    node: string,
    delta: Delta,
    hash: string,
  ): Promise<Head | 0> {
    const k = keysOf(kind);
    const at = Date.now();
    const set = Object.entries(delta.set).map(([key, value]) => [key, canonical(value)] as const);
    // the log's copy of the delta, from the same canonical texts (a seed has no base to log against)
    const logged = basedOn
      ? `{"set":{${set.map(([key, text]) => `${JSON.stringify(key)}:${text}`).join(",")}},"del":${JSON.stringify(delta.del)}}`
      : "";
    const r = (await this.link.send("EVAL", [
      PUBLISH,
      "6",
      k.head,
      k.map,
      k.log,
      COUNTER,
      CHANNEL,
      k.blob,
      String(basedOn?.version ?? 0),
      basedOn?.epoch ?? "",
      node,
      String(at),
      hash,
      kind,
      crypto.randomUUID(),
      logged,
      String(set.length),
      ...set.flat(),
      ...delta.del,
    ])) as number | [number, string];
    return Array.isArray(r) && Number(r[0]) > 0 ? { version: Number(r[0]), node, at, hash, epoch: String(r[1]) } : 0;
  }
}

/**
 * `known` with the logged deltas applied, when they lead without a gap from its version to the head's and
 * the result hashes as the head says; otherwise null (the caller fetches the whole map).
 */
function caughtUp(known: Known, head: Head, entries: unknown[]): Remote | null {
  let data = known.base;
  let version = known.version;
  let changed = 0;
  for (const entry of entries as Array<[string, unknown]>) {
    const fields = Object.fromEntries(pairsOf(entry[1]));
    // the log was trimmed past this node's version, or the entry is not the next one from here
    if (Number(fields.base) !== version) return null;
    let delta: Delta;
    try {
      delta = JSON.parse(fields.delta ?? "") as Delta;
    } catch {
      return null;
    }
    data = applyDelta(data, delta);
    changed += deltaSize(delta);
    version = Number.parseInt(entry[0], 10);
  }
  if (version !== head.version || hashOf(data) !== head.hash) return null;
  return { ...head, data, via: "deltas", changed };
}
