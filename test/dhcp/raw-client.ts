// Run inside a device's namespace: sends each datagram (hex, from argv) from port 68 to <server>:67
// and prints, as JSON, the replies that came back within <wait ms> after each one (the last one gets
// 1.5 s: an offer waits for the server's ping of the address).
import { createSocket } from "node:dgram";

const [server, waitMs, ...hexes] = process.argv.slice(2);
const sock = createSocket({ type: "udp4", reuseAddr: true });
await new Promise<void>((res) => sock.bind(68, "0.0.0.0", () => res()));
sock.setBroadcast(true);
let replies: string[] = [];
sock.on("message", (m) => replies.push(Buffer.from(m).toString("hex")));
const out: string[][] = [];
for (const [i, hex] of hexes.entries()) {
  replies = [];
  await new Promise<void>((res) => sock.send(Buffer.from(hex!, "hex"), 67, server!, () => res()));
  await Bun.sleep(i === hexes.length - 1 ? Math.max(1500, Number(waitMs)) : Number(waitMs));
  out.push(replies);
}
console.log(JSON.stringify(out));
sock.close();
