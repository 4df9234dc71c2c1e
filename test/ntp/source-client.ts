// Run inside a test namespace (ip netns exec … bun this.ts HOST): one NTP client request (version
// 4, mode 3) to HOST:123 from an unconnected socket, so an answer from any address is seen; prints
// {"from", "mode", "origin"} or null when none came within 2 s.
import { createSocket } from "node:dgram";

const host = process.argv[2] ?? "127.0.0.1";
const sock = createSocket(host.includes(":") ? "udp6" : "udp4");
const req = Buffer.alloc(48);
req[0] = (4 << 3) | 3;
req.writeUInt32BE(0xdeadbeef, 40);
const timer = setTimeout(() => {
  console.log("null");
  sock.close();
}, 2000);
sock.on("message", (msg, rinfo) => {
  clearTimeout(timer);
  console.log(JSON.stringify({ from: rinfo.address, mode: msg[0]! & 7, origin: msg.readUInt32BE(24) }));
  sock.close();
});
sock.send(req, 123, host);
