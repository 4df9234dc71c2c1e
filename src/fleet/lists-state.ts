// Groups, clients, domains, lists and their group links as one replicated kind: src/lists/ reads
// and applies the map (replicated.ts); here is how two nodes' maps merge.
import type { Database } from "bun:sqlite";
import type { EventBus } from "../core/events.ts";
import {
  applyListsMap,
  familyGroupOf,
  readListsMap,
  REPLICATED_LINKS as LINKS,
  REPLICATED_TABLES as TABLES,
  rowsOf,
} from "../lists/replicated.ts";
import type { StateMap } from "./state-map.ts";
import type { ReplicatedKind } from "./replica.ts";

/**
 * Before a merge: rows this node added under an id the other side also used for a different row
 * (both took the next AUTOINCREMENT value) move to a fresh id, links included, so both survive.
 */
function renumberCollisions(base: StateMap, local: StateMap, remote: StateMap): StateMap {
  const out = { ...local };
  for (const t of TABLES) {
    const mine = rowsOf(local, t.name);
    const theirs = rowsOf(remote, t.name);
    let next = Math.max(0, ...mine.keys(), ...theirs.keys()) + 1;
    for (const [id, row] of mine) {
      const key = `${t.name}/${id}`;
      const other = theirs.get(id);
      if (base[key] !== undefined || !other || t.natural(other) === t.natural(row)) continue;
      const fresh = next++;
      delete out[key];
      out[`${t.name}/${fresh}`] = row;
      for (const l of LINKS.filter((x) => x.owner === t.name))
        for (const k of Object.keys(out))
          if (k.startsWith(`${l.name}/${id}/`)) {
            delete out[k];
            out[`${l.name}/${fresh}/${k.split("/")[2]}`] = 1;
          }
      if (t.name === "group") {
        for (const l of LINKS)
          for (const k of Object.keys(out)) {
            const [name, owner, g] = k.split("/");
            if (name === l.name && Number(g) === id) {
              delete out[k];
              out[`${l.name}/${owner}/${fresh}`] = 1;
            }
          }
        // the group's family controls (blocked services, safe search, schedule) move with it
        for (const k of Object.keys(out))
          if (familyGroupOf(k) === id) {
            const [name, , rest] = k.split("/");
            const v = out[k];
            delete out[k];
            out[rest === undefined ? `${name}/${fresh}` : `${name}/${fresh}/${rest}`] = v;
          }
      }
    }
  }
  return out;
}

/** After a merge: one row per unique name (the lowest id stays), and no link without both ends. */
function tidy(map: StateMap): StateMap {
  const out = { ...map };
  for (const t of TABLES) {
    const seen = new Map<string, number>();
    for (const [id, row] of [...rowsOf(out, t.name)].sort((a, b) => a[0] - b[0])) {
      const n = t.natural(row);
      if (seen.has(n)) delete out[`${t.name}/${id}`];
      else seen.set(n, id);
    }
  }
  for (const l of LINKS)
    for (const k of Object.keys(out)) {
      const [name, owner, g] = k.split("/");
      if (
        name === l.name &&
        (out[`${l.owner}/${owner}`] === undefined || (Number(g) !== 0 && out[`group/${g}`] === undefined))
      )
        delete out[k];
    }
  // family controls of a group that is gone
  for (const k of Object.keys(out)) {
    const g = familyGroupOf(k);
    if (g !== null && g !== 0 && out[`group/${g}`] === undefined) delete out[k];
  }
  return out;
}

/**
 * The lists as a replicated kind. A sync looks at this node's map several times (before the
 * publish, after it, for the hash it agreed on); it is read from gravity.db once per change, not
 * at every look: every write of the tables announces itself (src/lists/), and the fleet calls
 * `changed()` on that announcement, before anything can read again. What the fleet applies is
 * written as the difference from that map (the rows a change touched), and is the map from then on.
 */
export class ListsKind implements ReplicatedKind {
  readonly name = "lists";
  private last: StateMap | null = null;
  readonly prepareMerge = renumberCollisions;
  readonly tidy = tidy;

  constructor(
    private readonly db: Database,
    private readonly events: EventBus,
  ) {}

  read(): StateMap {
    return (this.last ??= readListsMap(this.db));
  }

  /** This node wrote the tables: the map last read is out of date. */
  changed(): void {
    this.last = null;
  }

  apply(next: StateMap): Promise<void> {
    const current = this.last ?? undefined;
    // should the write fail, the next look reads the tables again
    this.last = null;
    // the tables hold `next` when this returns (the promise is the announcement, after the commit)
    const announced = applyListsMap(this.db, this.events, next, current);
    this.last = next;
    return announced;
  }
}
