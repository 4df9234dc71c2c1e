// The image test's update server (update-checks.sh): the files of one directory over HTTPS on 127.0.0.1,
// which the guest reaches as 10.0.2.2 (QEMU's user networking maps it to the host's loopback).
// Usage: bun serve-https.ts DIR CERT KEY: prints the port once it listens, and each request served.
import { basename, join } from "node:path";

const [dir, cert, key] = process.argv.slice(2);
if (!dir || !cert || !key) throw new Error("usage: serve-https.ts DIR CERT KEY");
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  tls: { cert: Bun.file(cert), key: Bun.file(key) },
  async fetch(req) {
    const name = basename(new URL(req.url).pathname);
    const f = Bun.file(join(dir, name));
    const found = name !== "" && (await f.exists());
    console.log(`${req.method} /${name} ${found ? 200 : 404}`);
    return found ? new Response(f) : new Response("not found\n", { status: 404 });
  },
});
console.log(`listening on ${server.port}`);
