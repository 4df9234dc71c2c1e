// --merge: the source's rows added to the target's management tables (both as src/lists/replicated.ts's
// map). A row the target has already (same group name, client, domain and type, list address and type)
// is kept as it is and the source's links and family controls point at it; new rows get ids after the
// target's.
import { REPLICATED_LINKS, REPLICATED_TABLES, rowsOf } from "../lists/replicated.ts";

type ListsMap = Record<string, unknown>;

export function mergeMaps(target: ListsMap, source: ListsMap): ListsMap {
  const out: ListsMap = { ...target };
  const idMap = new Map<string, Map<number, number>>();
  for (const t of REPLICATED_TABLES) {
    const mine = rowsOf(target, t.name);
    const byNatural = new Map([...mine].map(([id, r]) => [t.natural(r), id]));
    let next = Math.max(0, ...mine.keys()) + 1;
    const ids = new Map<number, number>();
    for (const [id, row] of rowsOf(source, t.name)) {
      const known = byNatural.get(t.natural(row));
      if (known !== undefined) ids.set(id, known);
      else {
        const n = next++;
        ids.set(id, n);
        byNatural.set(t.natural(row), n);
        out[`${t.name}/${n}`] = row;
      }
    }
    idMap.set(t.name, ids);
  }
  const group = (g: number) => idMap.get("group")!.get(g);
  for (const k of Object.keys(source)) {
    const parts = k.split("/");
    const link = REPLICATED_LINKS.find((l) => l.name === parts[0]);
    if (link) {
      const o = idMap.get(link.owner)!.get(Number(parts[1]));
      const g = group(Number(parts[2]));
      if (o !== undefined && g !== undefined) out[`${link.name}/${o}/${g}`] = 1;
    } else if (parts[0]!.startsWith("moat_group_")) {
      const g = group(Number(parts[1]));
      if (g !== undefined) out[[parts[0], g, ...parts.slice(2)].join("/")] = source[k];
    } else if (parts[0] === "moat_client_pause") out[k] = source[k];
  }
  return out;
}
