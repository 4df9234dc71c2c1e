// The fleet's one connection to Valkey/Redis (plus one for notifications). Each replicated kind
// is a hash `moat:fleet:kind:<name>` {version, node, at, hash, data}; versions come from one
// counter (INCR), so every change in the fleet has its place in one total order. A publish is a
// compare-and-set in one Lua script: it only lands when the publisher saw the latest version,
// otherwise the publisher merges and tries again. Commands fail at once while the server is
// away (no offline queue): the caller keeps its change and retries, DNS never waits.
import { RedisClient } from "bun";
import { canonical, hashOf, type StateMap } from "./state-map.ts";

const PREFIX = "moat:fleet:";
const CHANNEL = `${PREFIX}changes`;
/** one-off actions ("restartdns <node>"), announced to the nodes listening now */
const ACTIONS = `${PREFIX}actions`;
const COUNTER = `${PREFIX}version`;
const NODES = `${PREFIX}nodes`;
const LOG = `${PREFIX}log`;
const EPOCH = `${PREFIX}epoch`;

// The epoch names one life of the store: a store that restarted empty starts counting again, and
// the epoch tells its version 4 from the version 4 a node agreed on before.
const PUBLISH = `
local cur = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if cur ~= tonumber(ARGV[1]) then return 0 end
local e = redis.call('GET', KEYS[5])
if not e then e = ARGV[7]; redis.call('SET', KEYS[5], e) end
local v = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'version', v, 'node', ARGV[2], 'at', ARGV[3], 'hash', ARGV[4], 'data', ARGV[5], 'epoch', e)
redis.call('XADD', KEYS[3], 'MAXLEN', '~', '1000', '*', 'kind', ARGV[6], 'version', v, 'node', ARGV[2], 'at', ARGV[3])
redis.call('PUBLISH', KEYS[4], ARGV[6] .. ' ' .. v .. ' ' .. ARGV[2])
return {v, e}`;

const GRAVITY = `${PREFIX}gravity`;

const LEASE = `
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) return 1 end
return 0`;

const PUBLISH_GRAVITY = `
local v = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'version', v, 'node', ARGV[1], 'at', ARGV[2], 'hash', ARGV[3], 'updated', ARGV[4], 'data', ARGV[5])
redis.call('PUBLISH', KEYS[3], 'gravity ' .. v .. ' ' .. ARGV[1])
return v`;

export interface Head {
  version: number;
  node: string;
  /** ms since epoch */
  at: number;
  hash: string;
  /** the life of the store this version belongs to */
  epoch: string;
}

export interface Entry extends Head {
  data: StateMap;
}

class HashMismatch extends Error {}

const OPTIONS = { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: 2000 } as const;

export class RedisLink {
  private cmd: RedisClient | null = null;
  private sub: RedisClient | null = null;
  private connecting: Promise<void> | null = null;
  lastError: string | null = null;

  constructor(
    private readonly url: string,
    /** a notification: `kind` reached `version` (published by `node`) */
    private readonly onChange: (kind: string, version: number, node: string) => void,
    /** another node announced an action */
    private readonly onAction: (action: string, node: string) => void = () => {},
  ) {}

  get connected(): boolean {
    return !!this.cmd?.connected && !!this.sub?.connected;
  }

  /** Connects both clients if they are not; throws when the server cannot be reached. */
  ensure(): Promise<void> {
    if (this.connected) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connect(): Promise<void> {
    try {
      if (!this.cmd?.connected) {
        this.cmd?.close();
        this.cmd = new RedisClient(this.url, OPTIONS);
        await this.cmd.connect();
      }
      if (!this.sub?.connected) {
        this.sub?.close();
        this.sub = new RedisClient(this.url, OPTIONS);
        await this.sub.connect();
        await this.sub.subscribe(CHANNEL, (message) => {
          const [kind, version, node] = message.split(" ");
          if (kind && version) this.onChange(kind, Number(version), node ?? "");
        });
        await this.sub.subscribe(ACTIONS, (message) => {
          const [action, node] = message.split(" ");
          if (action) this.onAction(action, node ?? "");
        });
      }
      this.lastError = null;
    } catch (e) {
      this.lastError = (e as Error).message;
      throw e;
    }
  }

  private async send(command: string, args: string[]): Promise<unknown> {
    await this.ensure();
    try {
      return await this.cmd!.send(command, args);
    } catch (e) {
      this.lastError = (e as Error).message;
      throw e;
    }
  }

  async head(kind: string): Promise<Head | null> {
    const [version, node, at, hash, epoch] = (await this.send("HMGET", [
      `${PREFIX}kind:${kind}`,
      "version",
      "node",
      "at",
      "hash",
      "epoch",
    ])) as Array<string | null>;
    if (!version) return null;
    return { version: Number(version), node: node ?? "", at: Number(at ?? 0), hash: hash ?? "", epoch: epoch ?? "" };
  }

  /** The stored state of a kind, checked against its hash. */
  async fetch(kind: string): Promise<Entry | null> {
    const [version, node, at, hash, data, epoch] = (await this.send("HMGET", [
      `${PREFIX}kind:${kind}`,
      "version",
      "node",
      "at",
      "hash",
      "data",
      "epoch",
    ])) as Array<string | null>;
    if (!version || data == null) return null;
    const map = JSON.parse(data) as StateMap;
    if (hashOf(map) !== hash)
      throw new HashMismatch(`fleet ${kind} version ${version}: stored data does not match its hash`);
    return {
      version: Number(version),
      node: node ?? "",
      at: Number(at ?? 0),
      hash: hash ?? "",
      epoch: epoch ?? "",
      data: map,
    };
  }

  /** Publishes `data` as the next version if the stored one is still `expected`; returns the new version, or 0. */
  async publish(kind: string, expected: number, node: string, data: StateMap): Promise<Head | 0> {
    const at = Date.now();
    const hash = hashOf(data);
    const r = (await this.send("EVAL", [
      PUBLISH,
      "5",
      `${PREFIX}kind:${kind}`,
      COUNTER,
      LOG,
      CHANNEL,
      EPOCH,
      String(expected),
      node,
      String(at),
      hash,
      canonical(data),
      kind,
      crypto.randomUUID(),
    ])) as number | [number, string];
    return Array.isArray(r) && Number(r[0]) > 0 ? { version: Number(r[0]), node, at, hash, epoch: String(r[1]) } : 0;
  }

  /** Takes or renews a lease named `name`; true while this node holds it. */
  async lease(name: string, node: string, ms: number): Promise<boolean> {
    return Number(await this.send("EVAL", [LEASE, "1", `${PREFIX}lease:${name}`, node, String(ms)])) === 1;
  }

  async leaseHolder(name: string): Promise<string | null> {
    return ((await this.send("GET", [`${PREFIX}lease:${name}`])) as string | null) ?? null;
  }

  async gravityHead(): Promise<{ version: number; updated: string; node: string } | null> {
    const [version, updated, node] = (await this.send("HMGET", [GRAVITY, "version", "updated", "node"])) as Array<
      string | null
    >;
    return version ? { version: Number(version), updated: updated ?? "", node: node ?? "" } : null;
  }

  /** Stores a finished gravity package (gzip bytes) as the next version; returns it. */
  async publishGravity(node: string, updated: string, data: Uint8Array): Promise<number> {
    const hash = new Bun.CryptoHasher("sha256").update(data).digest("hex");
    const b64 = Buffer.from(data).toString("base64");
    return Number(
      await this.send("EVAL", [
        PUBLISH_GRAVITY,
        "3",
        GRAVITY,
        COUNTER,
        CHANNEL,
        node,
        String(Date.now()),
        hash,
        updated,
        b64,
      ]),
    );
  }

  /** The stored gravity package, checked against its hash. */
  async fetchGravity(): Promise<{ version: number; node: string; data: Uint8Array<ArrayBuffer> } | null> {
    const [version, node, hash, b64] = (await this.send("HMGET", [
      GRAVITY,
      "version",
      "node",
      "hash",
      "data",
    ])) as Array<string | null>;
    if (!version || b64 == null) return null;
    const data = new Uint8Array(Buffer.from(b64, "base64"));
    if (new Bun.CryptoHasher("sha256").update(data).digest("hex") !== hash)
      throw new HashMismatch(`fleet gravity version ${version}: stored package does not match its hash`);
    return { version: Number(version), node: node ?? "", data };
  }

  async announce(action: string, node: string): Promise<void> {
    await this.send("PUBLISH", [ACTIONS, `${action} ${node}`]);
  }

  /** Tells the fleet this node is alive and where it stands. */
  async heartbeat(node: string, info: Record<string, unknown>): Promise<void> {
    await this.send("HSET", [NODES, node, JSON.stringify(info)]);
  }

  async nodes(): Promise<Record<string, Record<string, unknown>>> {
    const all = (await this.send("HGETALL", [NODES])) as Record<string, string> | null;
    const out: Record<string, Record<string, unknown>> = {};
    for (const [k, v] of Object.entries(all ?? {})) {
      try {
        out[k] = JSON.parse(v) as Record<string, unknown>;
      } catch {
        // a foreign value under our key: not a node
      }
    }
    return out;
  }

  close(): void {
    this.cmd?.close();
    this.sub?.close();
    this.cmd = this.sub = null;
  }
}
