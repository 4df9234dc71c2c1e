// `moat healthcheck`: asks the running server one DNS question and one API request over loopback, as a
// container's HEALTHCHECK does (the image has no dig or curl). Healthy when both answer in time; any DNS
// answer counts (a refusal is an answer: the server is up), any HTTP status below 500 too.
import { createSocket } from "node:dgram";
import { parseWebPort, type Config } from "../config/index.ts";

const TIMEOUT_MS = 3000;

/** A standard query for `localhost. A`, which Moat answers itself (RFC 6761), never asking an upstream. */
function localhostQuery(id: number): Buffer {
  const header = Buffer.from([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
  const name = Buffer.from([9, ...Buffer.from("localhost"), 0]);
  return Buffer.concat([header, name, Buffer.from([0, 1, 0, 1])]);
}

function askDns(port: number, host = "127.0.0.1", timeoutMs = TIMEOUT_MS): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = createSocket(host.includes(":") ? "udp6" : "udp4");
    const id = Math.floor(Math.random() * 0x10000);
    const done = (problem: string | null) => {
      clearTimeout(timer);
      socket.close();
      resolve(problem);
    };
    const timer = setTimeout(
      () => done(`no DNS answer on ${host} port ${port} within ${timeoutMs / 1000} s`),
      timeoutMs,
    );
    socket.on("error", (e) => done(`DNS on ${host} port ${port}: ${e.message}`));
    socket.on("message", (m) => {
      if (m.length >= 12 && m.readUInt16BE(0) === id && m[2]! & 0x80) done(null);
    });
    socket.send(localhostQuery(id), port, host);
  });
}

/** The first `webserver.port` entry as a loopback URL (a wildcard or missing address becomes 127.0.0.1). */
export function apiUrl(webserverPort: string): string | null {
  const entries = webserverPort.split(",").map((e) => parseWebPort(e.trim()));
  const p = entries.find((e) => e && !e.tls) ?? entries.find((e) => e);
  if (!p) return null;
  let host = p.host === undefined || p.host === "0.0.0.0" ? "127.0.0.1" : p.host;
  if (host === "::") host = "::1";
  return `${p.tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${p.port}/api/info/login`;
}

async function askApi(url: string): Promise<string | null> {
  try {
    // the certificate is Moat's own (or the user's for another name): this checks that it answers
    const r = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), tls: { rejectUnauthorized: false } });
    await r.arrayBuffer();
    return r.status < 500 ? null : `the API answered ${url} with HTTP ${r.status}`;
  } catch (e) {
    return `no API answer on ${url}: ${(e as Error).message}`;
  }
}

/** Prints one line and returns the exit status: 0 healthy, 1 not. */
export async function healthcheck(config: Config): Promise<number> {
  const url = apiUrl(config.webserver.port);
  const [dns, api] = await Promise.all([
    askDns(config.dns.port),
    url ? askApi(url) : Promise.resolve("webserver.port has no port"),
  ]);
  const problems = [dns, api].filter((p) => p !== null);
  if (problems.length) {
    console.error(`unhealthy: ${problems.join("; ")}`);
    return 1;
  }
  console.log(`healthy: DNS answered on port ${config.dns.port}, the API on ${url}`);
  return 0;
}
