// Moat's NTP server against sntp (ntpdig) and a byte-level client: the time of the system clock, with
// the leap indicator and stratum saying whether the kernel has it synchronised; malformed requests
// get no answer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createSocket } from "node:dgram";
import { dlopen, FFIType, ptr } from "bun:ffi";
import { startMoat, type MoatProcess } from "../harness/moat.ts";

const root = process.getuid?.() === 0;
let moat: MoatProcess;

/** The kernel's own answer (adjtimex state 5 = TIME_ERROR: not synchronised), read here independently. */
function kernelSynchronised(): boolean {
  const lib = dlopen("libc.so.6", { adjtimex: { args: [FFIType.ptr], returns: FFIType.i32 } });
  try {
    return lib.symbols.adjtimex(ptr(new BigInt64Array(26))) !== 5;
  } finally {
    lib.close();
  }
}

/** Sends each datagram to host:123 and collects what comes back within waitMs after each. */
async function ask(host: string, packets: Uint8Array[], waitMs = 400): Promise<Buffer[][]> {
  const sock = createSocket(host.includes(":") ? "udp6" : "udp4");
  await new Promise<void>((res) => sock.bind(0, res));
  let got: Buffer[] = [];
  sock.on("message", (m) => got.push(Buffer.from(m)));
  const out: Buffer[][] = [];
  for (const p of packets) {
    got = [];
    sock.send(p, 123, host);
    await Bun.sleep(waitMs);
    out.push(got);
  }
  sock.close();
  return out;
}

function request(version: number, mode: number, length = 48): Uint8Array {
  const b = Buffer.alloc(Math.max(length, 48));
  b[0] = (version << 3) | mode;
  b[2] = 6;
  b.writeUInt32BE(0xdeadbeef, 40); // transmit timestamp: comes back as the origin
  b.writeUInt32BE(0x12345678, 44);
  return b.subarray(0, length);
}

beforeAll(async () => {
  if (root) moat = await startMoat();
});
afterAll(async () => {
  await moat?.dispose();
});

describe.skipIf(!root)("NTP server", () => {
  for (const host of ["127.0.0.1", "::1"]) {
    test(`answers a client over ${host.includes(":") ? "IPv6" : "IPv4"} with the system clock, flagged as the kernel says`, async () => {
      const before = Date.now() / 1000;
      const [[reply]] = (await ask(host, [request(4, 3)])) as [[Buffer]];
      expect(reply).toBeDefined();
      expect(reply.length).toBe(48);
      const synced = kernelSynchronised();
      expect(reply[0]! & 7).toBe(4); // server mode
      expect((reply[0]! >> 3) & 7).toBe(4); // the client's version
      expect(reply[0]! >> 6).toBe(synced ? reply[0]! >> 6 : 3);
      if (synced) expect(reply[0]! >> 6).not.toBe(3);
      expect(reply[1]).toBe(synced ? 3 : 16);
      expect(reply.readUInt32BE(24)).toBe(0xdeadbeef); // origin = our transmit timestamp
      expect(reply.readUInt32BE(28)).toBe(0x12345678);
      const transmit = reply.readUInt32BE(40) - 2208988800 + reply.readUInt32BE(44) / 2 ** 32;
      const receive = reply.readUInt32BE(32) - 2208988800 + reply.readUInt32BE(36) / 2 ** 32;
      expect(Math.abs(transmit - before)).toBeLessThan(2);
      expect(transmit).toBeGreaterThanOrEqual(receive);
    });
  }

  test("sntp takes the time when the clock is synchronised and refuses it when not", () => {
    const p = Bun.spawnSync(["sntp", "-t", "3", "-j", "127.0.0.1"], { stdout: "pipe", stderr: "pipe" });
    const out = p.stdout.toString() + p.stderr.toString();
    if (kernelSynchronised()) {
      expect(p.exitCode).toBe(0);
      const j = JSON.parse(p.stdout.toString()) as { offset: number; stratum: number; leap: string };
      expect(Math.abs(j.offset)).toBeLessThan(1);
      expect(j.stratum).toBe(3);
    } else {
      expect(p.exitCode).not.toBe(0);
      expect(out).toContain("127.0.0.1: Response dropped: stratum too high");
    }
  });

  test("malformed and non-client packets get no answer; the server keeps answering", async () => {
    const bad = [
      request(4, 3, 47), // short
      request(4, 4), // a server's reply
      request(4, 6), // control (ntpq)
      request(2, 7), // private (ntpdc monlist): never answered
      request(0, 3), // version 0
      request(5, 3), // version 5
      request(4, 3, 51), // extension of 3 bytes
      new Uint8Array(2000).fill(0x23), // large
    ];
    const replies = await ask("127.0.0.1", [...bad, request(3, 3)], 250);
    expect(replies.slice(0, bad.length)).toEqual(bad.map(() => []));
    expect(replies[bad.length]!.length).toBe(1);
    expect((replies[bad.length]![0]![0]! >> 3) & 7).toBe(3);
  });
});
