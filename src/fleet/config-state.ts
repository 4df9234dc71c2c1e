// The shared settings as a replicated map: "dns.upstreams" -> ["9.9.9.9"]. Applied through the
// config store like an API change, so the file, the DNS side and every subscriber see it the
// usual way. A key the environment pins on this node is neither published nor overwritten here.
import type { ConfigStore } from "../config/index.ts";
import { canonical, type StateMap } from "./state-map.ts";
import { SHARED_KEYS } from "./shared-keys.ts";
import type { ReplicatedKind } from "./replica.ts";

export function configKind(config: ConfigStore): ReplicatedKind {
  return {
    name: "config",
    read(base) {
      const out: StateMap = {};
      for (const k of SHARED_KEYS) {
        // a pinned key has no say: it looks unchanged, so the fleet's value passes through
        if (config.envForced.has(k)) {
          if (base[k] !== undefined) out[k] = base[k];
        } else out[k] = structuredClone(config.get(k));
      }
      return out;
    },
    apply(next) {
      const changes: Array<{ path: string; value: unknown }> = [];
      for (const k of SHARED_KEYS) {
        if (config.envForced.has(k) || !(k in next)) continue;
        if (canonical(config.get(k)) !== canonical(next[k])) changes.push({ path: k, value: next[k] });
      }
      if (!changes.length) return;
      const r = config.update(changes);
      if (!r.ok) throw new Error(`${r.problem.message}: ${r.problem.hint}`);
    },
  };
}
