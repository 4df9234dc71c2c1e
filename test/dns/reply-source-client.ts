// Run inside a test namespace (ip netns exec … bun this.ts ADDR PORT NAME COUNT): sends COUNT
// queries for NAME to ADDR:PORT over UDP, each from a fresh unconnected socket, so it sees every
// answer with the address it came from (where dig drops one from another address), and prints
// one JSON line per query.
import { createSocket } from "node:dgram";
import * as packet from "dns-packet";

const [addr = "", port = "53", name = "", count = "1"] = process.argv.slice(2);

function one(id: number): Promise<object> {
  const sock = createSocket(addr.includes(":") ? "udp6" : "udp4");
  const query = packet.encode({
    type: "query",
    id,
    flags: packet.RECURSION_DESIRED,
    questions: [{ type: "A", name }],
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      sock.close();
      resolve({ id, from: null });
    }, 3000);
    sock.on("message", (msg, rinfo) => {
      clearTimeout(timer);
      sock.close();
      const r = packet.decode(msg);
      resolve({
        id,
        from: rinfo.address,
        replyId: r.id,
        qr: r.type === "response",
        rcode: (r as { rcode?: string }).rcode ?? "NOERROR",
        question: r.questions?.[0]?.name ?? null,
        answer: (r.answers ?? []).map((a) => String((a as { data?: unknown }).data)),
      });
    });
    sock.send(query, Number(port), addr);
  });
}

for (let i = 0; i < Number(count); i++) console.log(JSON.stringify(await one(1000 + i)));
