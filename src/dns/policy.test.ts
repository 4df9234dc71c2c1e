// The policy step's seam (src/filter/policy.ts): a toy group policy handed to a snapshot is judged at its point,
// with blocking off only when it says so, and not at all when it loaded nothing; nothing in src/dns or src/filter
// names it. No server: the real PolicyHandler and Snapshot, one query at a time.
import { describe, expect, test } from "bun:test";
import * as packet from "dns-packet";
import { defaults } from "../config/schema.ts";
import type { GroupPolicy, PolicyPoint, PolicyVerdict } from "../filter/policy.ts";
import { Snapshot } from "../filter/snapshot.ts";
import { Status } from "../query/enums.ts";
import type { ConfigView, QueryContext } from "./context.ts";
import { PolicyHandler } from "./policy.ts";
import { parseQuery } from "./wire.ts";

const TOY: PolicyVerdict = { status: Status.DENYLIST, reason: "toy", listId: -7, cnameTo: null };

/** A policy that blocks one name and counts the names it was asked about. */
function toy(point: PolicyPoint, opts: { always?: boolean; loads?: boolean; name?: string; everyName?: boolean } = {}) {
  const asked: string[] = [];
  /** each name's wire form and label offsets, as the policy was handed them */
  const seen: Array<{ wire: number[]; labels: number[] }> = [];
  const policy: GroupPolicy<{ name: string }, { name: string }> = {
    name: opts.name ?? "toy",
    point,
    always: opts.always,
    everyName: opts.everyName,
    compile: () => ({ name: opts.name ?? "toy.test" }),
    empty: () => ({ name: opts.name ?? "toy.test" }),
    buffers: () => [],
    load: (d) => (opts.loads === false ? null : d),
    judge(s, _q, n) {
      asked.push(n.name);
      seen.push({ wire: [...n.wire], labels: [...n.labels] });
      return n.name === s.name ? TOY : null;
    },
  };
  return { policy, asked, seen, snap: Snapshot.empty({ list: [policy], buildWorker: "" }) };
}

function ask(snap: Snapshot, name: string, blocking = true): { answer: unknown; ctx: QueryContext } {
  const wire = new Uint8Array(packet.encode({ type: "query", id: 1, questions: [{ type: "A", name, class: "IN" }] }));
  const ctx = {
    query: wire,
    q: parseQuery(wire),
    client: "10.0.0.1",
    clientId: null,
    tcp: false,
    start: 0,
    snapshot: snap,
    status: 0,
    reply: 0,
    upstream: null,
    listId: null,
    ede: -1,
    cname: null,
    upstreamMessage: null,
    cnameChain: null,
    upstreamSet: 0,
    dnssec: 0,
    background: false,
  } as QueryContext;
  const view = { current: defaults(), subscribe: () => () => {} } as unknown as ConfigView;
  const answer = new PolicyHandler(view, { active: blocking }).handle(ctx, () => FORWARDED);
  return { answer, ctx };
}
const FORWARDED = new Uint8Array(1);

describe("a toy group policy", () => {
  for (const point of ["client", "beforeAllow", "afterDeny"] as const)
    test(`at "${point}" it blocks with its verdict, and lets other names on`, () => {
      const { snap, asked } = toy(point);
      const blocked = ask(snap, "toy.test");
      expect(blocked.answer).not.toBe(FORWARDED);
      expect({ status: blocked.ctx.status, listId: blocked.ctx.listId }).toEqual({
        status: Status.DENYLIST,
        listId: -7,
      });
      expect(ask(snap, "other.test").answer).toBe(FORWARDED);
      expect(asked).toEqual(["toy.test", "other.test"]);
    });

  test("with blocking off only a policy marked `always` is asked", () => {
    expect(ask(toy("client").snap, "toy.test", false).answer).toBe(FORWARDED);
    expect(ask(toy("client", { always: true }).snap, "toy.test", false).answer).not.toBe(FORWARDED);
    // beside one marked `always`, one that is not stays unasked
    const always = toy("client", { always: true, name: "paused.test" });
    const not = toy("client");
    const both = Snapshot.empty({ list: [always.policy, not.policy], buildWorker: "" });
    expect(ask(both, "toy.test", false).answer).toBe(FORWARDED);
    expect(ask(both, "paused.test", false).answer).not.toBe(FORWARDED);
    expect(not.asked).toEqual([]);
  });

  test("dns.blockESNI: _esni.<name> is judged as <name> too, with that name's own wire form and labels", () => {
    const { snap, asked, seen } = toy("afterDeny", { everyName: true });
    const blocked = ask(snap, "_esni.toy.test");
    expect(blocked.answer).not.toBe(FORWARDED);
    expect(blocked.ctx.status).toBe(Status.DENYLIST);
    expect(asked).toEqual(["_esni.toy.test", "toy.test"]);
    expect(seen[1]).toEqual({ wire: [3, 116, 111, 121, 4, 116, 101, 115, 116, 0], labels: [0, 4] });
  });

  test("a policy that loaded nothing is not asked", () => {
    const { snap, asked } = toy("beforeAllow", { loads: false });
    expect(ask(snap, "toy.test").answer).toBe(FORWARDED);
    expect(asked).toEqual([]);
  });
});
