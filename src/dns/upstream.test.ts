// The upstream socket pool (upstream.ts) against a responder on loopback: the thread's limit of 1,000
// sockets is shared by every upstream, and a pooled socket with nothing in flight gives way to an
// upstream that has none, so a resolver that asked many servers in the last half second can still ask
// the next one; and a socket takes at most USES queries.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { udp } from "bun";
import { USES, Upstream } from "./upstream.ts";

let responder: udp.Socket<"uint8array">;

beforeAll(async () => {
  responder = await Bun.udpSocket({
    hostname: "127.0.0.1",
    port: 0,
    binaryType: "uint8array",
    socket: {
      data(s, buf, port, addr) {
        const a = new Uint8Array(buf);
        a[2]! |= 0x80; // QR: the query back as its own answer, ID and question unchanged
        s.send(a, port, addr);
      },
    },
  });
});
afterAll(() => responder?.close());

/** A query for `<label>.test A` and the end of its question. */
function query(label: string): { q: Uint8Array; end: number } {
  const name = [label.length, ...Buffer.from(label), 4, ...Buffer.from("test"), 0];
  const q = new Uint8Array([0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, ...name, 0, 1, 0, 1]);
  return { q, end: q.length };
}

test("with 1,000 sockets held by other upstreams' pools, idle, a new upstream still gets one", async () => {
  const ups = Array.from({ length: 1001 }, (_, i) => new Upstream("127.0.0.1", responder.port, `u${i}`));
  try {
    // one query each for the first 1,000, 100 at a time (more at once overflow the responder's receive
    // buffer): each keeps its socket in its pool, idle (nothing here sweeps them away after half a second)
    const first: Array<Uint8Array | null> = [];
    for (let k = 0; k < 1000; k += 100) {
      const batch = ups.slice(k, k + 100).map((u, i) => {
        const { q, end } = query(`a${k + i}`);
        return u.send(q, end, 5000);
      });
      first.push(...(await Promise.all(batch)));
    }
    expect(first.filter((a) => a !== null).length).toBe(1000);
    expect(ups.slice(0, 1000).reduce((n, u) => n + u.slots.size, 0)).toBe(1000);
    const { q, end } = query("last");
    const a = await ups[1000]!.send(q, end, 5000);
    expect(a).not.toBeNull();
    expect(ups.slice(0, 1000).reduce((n, u) => n + u.slots.size, 0)).toBe(999); // one gave way
  } finally {
    for (const u of ups) u.close();
  }
}, 30000);

test("a burst of 12 × USES queries at once: no socket takes more than USES, so the pool's 8 are replaced", () => {
  const u = new Upstream("127.0.0.1", responder.port, "burst");
  try {
    // sent in one turn, so no socket ages out meanwhile: only the count retires them
    for (let i = 0; i < 12 * USES; i++) {
      const { q, end } = query(`b${i}`);
      void u.send(q, end, 5000);
    }
    const sent = [...u.slots].map((s) => s.sent);
    expect(Math.max(...sent)).toBeLessThanOrEqual(USES);
    expect(sent.reduce((n, k) => n + k, 0)).toBe(12 * USES);
    // 12 × USES / 8 each for the first 8 if nothing retired them
    expect(u.slots.size).toBeGreaterThanOrEqual(8 + 4);
  } finally {
    u.close();
  }
});
