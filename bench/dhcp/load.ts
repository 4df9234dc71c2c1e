// Load generator, run inside a client namespace: keeps <window> DHCP REQUESTs (init-reboot: one
// client each, asking for its address in the pool) in flight against <server>:67 for <seconds>, and
// prints JSON: ACKs per second and the round trip (REQUEST → ACK) percentiles.
// Usage: bun load.ts <server> <prefix> <first> <count> <seconds> <window>
import { createSocket } from "node:dgram";

const [server, prefix, firstS, countS, secondsS, windowS] = process.argv.slice(2);
const first = Number(firstS),
  count = Number(countS),
  seconds = Number(secondsS),
  window = Number(windowS);

function request(xid: number, i: number): Buffer {
  const b = Buffer.alloc(300);
  b[0] = 1;
  b[1] = 1;
  b[2] = 6;
  b.writeUInt32BE(xid, 4);
  b.writeUInt16BE(0x8000, 10); // broadcast the answer back
  Buffer.from([0x02, 0xbe, 0x0c, 0, (i >> 8) & 255, i & 255]).copy(b, 28);
  b.writeUInt32BE(0x63825363, 236);
  const ip = `${prefix}.${first + i}`.split(".").map(Number);
  Buffer.from([53, 1, 3, 50, 4, ...ip, 255]).copy(b, 240);
  return b;
}

const sock = createSocket({ type: "udp4", reuseAddr: true });
await new Promise<void>((res) => sock.bind(68, "0.0.0.0", () => res()));
sock.setBroadcast(true);
const sentAt = new Map<number, number>();
const rtts: number[] = [];
let acks = 0,
  naks = 0,
  next = 0,
  xidBase = (Math.random() * 2 ** 31) >>> 0;
const end = performance.now() + seconds * 1000;

function sendOne() {
  if (performance.now() >= end) return;
  const i = next++ % count;
  const xid = (xidBase + next) >>> 0;
  sentAt.set(xid, performance.now());
  sock.send(request(xid, i), 67, server!);
}

sock.on("message", (m) => {
  if (m.length < 244 || m[0] !== 2) return;
  const xid = m.readUInt32BE(4);
  const t = sentAt.get(xid);
  if (t === undefined) return;
  sentAt.delete(xid);
  rtts.push(performance.now() - t);
  if (m[242] === 5) acks++;
  else naks++;
  sendOne();
});
// lost requests are replaced so the window stays full
const refill = setInterval(() => {
  const now = performance.now();
  for (const [xid, t] of sentAt) if (now - t > 1000) sentAt.delete(xid), sendOne();
}, 200);
for (let k = 0; k < window; k++) sendOne();
await Bun.sleep(seconds * 1000 + 300);
clearInterval(refill);
sock.close();
rtts.sort((a, b) => a - b);
const pct = (p: number) => (rtts.length ? rtts[Math.min(rtts.length - 1, Math.floor(rtts.length * p))]! : NaN);
console.log(JSON.stringify({ acks, naks, perSecond: acks / seconds, p50: pct(0.5), p99: pct(0.99) }));
