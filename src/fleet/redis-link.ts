// The fleet's one connection to Valkey/Redis (plus one for notifications). Each replicated kind
// is a hash `moat:fleet:kind:<name>` {version, node, at, hash, data}; versions come from one
// counter (INCR), so every change in the fleet has its place in one total order. A publish is a
// compare-and-set in one Lua script: it only lands when the publisher saw the latest version,
// otherwise the publisher merges and tries again. Commands fail at once while the server is
// away (no offline queue): the caller keeps its change and retries, DNS never waits.
import { RedisClient } from "bun";
import { canonical, hashOf, type StateMap } from "./state-map.ts";

export const PREFIX = "moat:fleet:";
export const CHANNEL = `${PREFIX}changes`;
const COUNTER = `${PREFIX}version`;
const NODES = `${PREFIX}nodes`;
const LOG = `${PREFIX}log`;

const PUBLISH = `
local cur = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if cur ~= tonumber(ARGV[1]) then return 0 end
local v = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[1], 'version', v, 'node', ARGV[2], 'at', ARGV[3], 'hash', ARGV[4], 'data', ARGV[5])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', '1000', '*', 'kind', ARGV[6], 'version', v, 'node', ARGV[2], 'at', ARGV[3])
redis.call('PUBLISH', KEYS[4], ARGV[6] .. ' ' .. v .. ' ' .. ARGV[2])
return v`;

export interface Head {
  version: number;
  node: string;
  /** ms since epoch */
  at: number;
  hash: string;
}

export interface Entry extends Head {
  data: StateMap;
}

export class HashMismatch extends Error {}

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
    const [version, node, at, hash] = (await this.send("HMGET", [`${PREFIX}kind:${kind}`, "version", "node", "at", "hash"])) as Array<string | null>;
    if (!version) return null;
    return { version: Number(version), node: node ?? "", at: Number(at ?? 0), hash: hash ?? "" };
  }

  /** The stored state of a kind, checked against its hash. */
  async fetch(kind: string): Promise<Entry | null> {
    const [version, node, at, hash, data] = (await this.send("HMGET", [`${PREFIX}kind:${kind}`, "version", "node", "at", "hash", "data"])) as Array<string | null>;
    if (!version || data == null) return null;
    const map = JSON.parse(data) as StateMap;
    if (hashOf(map) !== hash) throw new HashMismatch(`fleet ${kind} version ${version}: stored data does not match its hash`);
    return { version: Number(version), node: node ?? "", at: Number(at ?? 0), hash: hash ?? "", data: map };
  }

  /** Publishes `data` as the next version if the stored one is still `expected`; returns the new version, or 0. */
  async publish(kind: string, expected: number, node: string, data: StateMap): Promise<Head | 0> {
    const at = Date.now();
    const hash = hashOf(data);
    const v = Number(await this.send("EVAL", [PUBLISH, "4", `${PREFIX}kind:${kind}`, COUNTER, LOG, CHANNEL, String(expected), node, String(at), hash, canonical(data), kind]));
    return v > 0 ? { version: v, node, at, hash } : 0;
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
