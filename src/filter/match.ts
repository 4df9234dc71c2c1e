// Lookups in a snapshot's sets for one name, shared by the policy step (src/dns/policy.ts) and the group
// policies (src/policies/): none allocates, and the suffixes of a name are worked out once for every subtree set.
import { hashName, type DomainSet, type DomainSetData } from "./domainset.ts";

/** Whether the group bitsets share a group. */
export function intersects(a: Uint32Array, b: Uint32Array): boolean {
  for (let i = 0; i < b.length; i++) if (((a[i] ?? 0) & b[i]!) !== 0) return true;
  return false;
}

/** The groups any entry of a set applies to: a client in none of them need not look the name up. */
export function groupsOfSet(d: DomainSetData): Uint32Array {
  const out = new Uint32Array(d.words);
  for (let i = 0; i < d.comboMasks.length; i++) out[i % d.words]! |= d.comboMasks[i]!;
  return out;
}

export function matchExact(set: DomainSet, wire: Uint8Array, h: number, groups: Uint32Array): number {
  return set.size === 0 ? -1 : set.match(wire, h, groups);
}

// The suffixes of the name being judged (each label onwards) and their hashes, worked out once per name
// for every subtree set (the ABP lists, the blocked services, the scheduled ones) instead of once per set:
// a view per label is an object for the collector. Keyed by the wire array itself; the policy step forgets it
// at the start of every query, so a buffer used again for another name is never taken for the last one.
const SUF_VIEWS: Uint8Array[] = [];
const SUF_H: number[] = [];
let sufWire: Uint8Array | null = null;

export function forgetSuffixes(): void {
  sufWire = null;
}

function suffixes(wire: Uint8Array, labels: number[], h0: number): void {
  if (sufWire === wire) return;
  sufWire = wire;
  for (let i = 0; i < labels.length; i++) {
    const v = i === 0 ? wire : wire.subarray(labels[i]);
    SUF_VIEWS[i] = v;
    SUF_H[i] = i === 0 ? h0 : hashName(v);
  }
}

/** An ABP `||x^` entry matches x and every name below it. */
export function matchSubtree(
  set: DomainSet,
  wire: Uint8Array,
  labels: number[],
  h0: number,
  groups: Uint32Array,
): number {
  if (set.size === 0) return -1;
  suffixes(wire, labels, h0);
  for (let i = 0; i < labels.length; i++) {
    const id = set.match(SUF_VIEWS[i]!, SUF_H[i]!, groups);
    if (id >= 0) return id;
  }
  return -1;
}
