// The flat maps the fleet replicates, on their own: a delta from one map to another applies back to
// the same map (by hash too), leaves the maps it came from untouched, and counts undefined as absent.
import { expect, test } from "bun:test";
import { applyDelta, deltaSize, diff, hashOf, merge3, type StateMap } from "./state-map.ts";

test("diff then applyDelta makes the target, and neither input changes", () => {
  const from: StateMap = { a: 1, b: { x: [1, 2] }, c: "gone", d: null };
  const to: StateMap = { a: 1, b: { x: [1, 3] }, d: null, e: { y: true }, u: undefined };
  const before = JSON.stringify(from);
  const delta = diff(from, to);
  expect(delta).toEqual({ set: { b: { x: [1, 3] }, e: { y: true } }, del: ["c"] });
  expect(deltaSize(delta)).toBe(3);
  const made = applyDelta(from, delta);
  expect(hashOf(made)).toBe(hashOf(to));
  expect(JSON.stringify(from)).toBe(before);
  expect(made).not.toBe(from);
});

test("equal values under other objects are no change; key order does not matter", () => {
  expect(diff({ r: { a: 1, b: 2 } }, { r: { b: 2, a: 1 } })).toEqual({ set: {}, del: [] });
  expect(diff({}, {})).toEqual({ set: {}, del: [] });
});

test("a delta from a merge's remote side is what the merge adds to it", () => {
  const base: StateMap = { a: 1, b: 1 };
  const local: StateMap = { a: 2, b: 1 };
  const remote: StateMap = { a: 1, b: 1, c: 3 };
  const merged = merge3(base, local, remote);
  expect(diff(remote, merged)).toEqual({ set: { a: 2 }, del: [] });
  expect(applyDelta(remote, diff(remote, merged))).toEqual(merged);
});
