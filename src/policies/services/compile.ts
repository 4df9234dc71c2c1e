// The groups' picks of blocked services, compiled into one domain set for the snapshot: every rule of a
// picked service is a subtree entry whose id is the service's code and whose mask is the groups that
// picked it. One set for all services, so a query costs one lookup per label whatever the number picked.
import { resolveCombos, type DomainSetData } from "../../filter/domainset.ts";
import { ComboTable, DomainSetBuilder } from "../../filter/domainset-build.ts";
import { SERVICES } from "./catalogue.ts";
import { ruleWire } from "./rules.ts";

export function serviceSetData(
  picks: ReadonlyArray<{ g: number; service: string }>,
  bitOf: ReadonlyMap<number, number>,
  words: number,
): DomainSetData {
  const masks = new Map<number, Uint32Array>();
  const codeOf = new Map(SERVICES.map((x) => [x.id, x.code]));
  for (const p of picks) {
    const code = codeOf.get(p.service);
    const bit = bitOf.get(p.g);
    // a service the catalogue no longer has, or a disabled group: nothing to block
    if (code === undefined || bit === undefined) continue;
    let m = masks.get(code);
    if (!m) masks.set(code, (m = new Uint32Array(words)));
    m[bit >>> 5]! |= 1 << (bit & 31);
  }
  const b = new DomainSetBuilder(new ComboTable());
  for (const svc of SERVICES) {
    if (!masks.has(svc.code)) continue;
    for (const r of svc.rules) {
      const w = ruleWire(r);
      if (w) b.add(w, svc.code);
    }
  }
  return resolveCombos(b.finish(), words, (code) => masks.get(code));
}
