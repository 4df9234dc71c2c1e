// The floor under Moat's tail: a bare Bun UDP server that answers each query at once (its header
// turned into an empty NOERROR answer) and sends the answers in the batches Moat's own sockets use
// (src/dns/udp-batch.ts: one sendMany at the end of the event loop's turn). What its tail shows,
// the runtime and the machine give before any of Moat's work (bench/mix/paths.ts).
// Usage: bun bench/mix/echo-floor.ts PORT
import { UdpBatcher } from "../../src/dns/udp-batch.ts";

const port = Number(process.argv[2]);
let out: UdpBatcher | null = null;
const sock = await Bun.udpSocket({
  hostname: "127.0.0.1",
  port,
  binaryType: "uint8array",
  socket: {
    data(s, buf, rport, addr) {
      if (buf.length < 12) return;
      const a = new Uint8Array(buf);
      a[2] = (a[2]! | 0x80) & ~0x04; // QR, not AA
      a[3] = 0x80; // RA, NOERROR
      out ??= new UdpBatcher((q) => s.sendMany(q));
      out.send(a, rport, addr);
    },
  },
});
console.error(`echo floor on 127.0.0.1:${sock.port}`);
