// A DNS thread's copy of the configuration, replaced whole when the main thread posts a change. The
// resolver's listeners compare subtrees by identity (`next.dns.upstreams !== prev.dns.upstreams`),
// so parts that did not change keep the previous copy's objects: a cloned tree would be all new.
import type { Config } from "../../config/index.ts";
import type { ConfigView } from "../context.ts";

type Listener = Parameters<ConfigView["subscribe"]>[0];

/** `next`, with every part equal to `prev`'s replaced by prev's own object. */
function sharePrevious<T>(prev: T, next: T): T {
  if (prev === next || JSON.stringify(prev) === JSON.stringify(next)) return prev;
  if (typeof prev !== "object" || typeof next !== "object" || prev === null || next === null || Array.isArray(next))
    return next;
  const out: Record<string, unknown> = {};
  const p = prev as Record<string, unknown>;
  for (const [k, v] of Object.entries(next as Record<string, unknown>)) out[k] = k in p ? sharePrevious(p[k], v) : v;
  return out as T;
}

export class ConfigMirror implements ConfigView {
  private value: Config;
  private readonly listeners = new Set<Listener>();

  constructor(initial: Config) {
    this.value = initial;
  }

  get current(): Config {
    return this.value;
  }

  subscribe(fn: Listener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  set(next: Config, changed: readonly string[]): void {
    const prev = this.value;
    this.value = sharePrevious(prev, next);
    for (const fn of this.listeners) fn(this.value, prev, changed);
  }
}
