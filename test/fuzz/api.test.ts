// API fuzzer: random requests across every route in /api/endpoints (path parameters filled with odd
// values, plus Moat's own routes), with wrong types, bad JSON, huge and deep bodies, odd Unicode,
// bad headers and methods (some over a raw socket, as no HTTP client would send them). Every answer
// must be the JSON envelope (or the route's documented non-JSON reply) with the security headers,
// never a 5xx and never a dropped connection. CI runs a bounded slice with a fixed seed; a long run:
// MOAT_FUZZ_LONG=1 [MOAT_FUZZ_SEED=n] [MOAT_FUZZ_SECONDS=600] bun test test/fuzz/api.test.ts
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { getWithBody } from "../harness/get-with-body.ts";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { rawHttp } from "../harness/raw-http.ts";
import { SAFE_CONFIG_ELEMENTS, body, headers, nastyString, pathValue, pct, pick, query } from "./api-gen.ts";
import { rng, type Rng } from "../harness/rng.ts";

const LONG = process.env.MOAT_FUZZ_LONG === "1";
const SEED = Number(process.env.MOAT_FUZZ_SEED ?? 20261125);
const SECONDS = Number(process.env.MOAT_FUZZ_SECONDS ?? (LONG ? 600 : 35));
const MAX_REQUESTS = LONG ? 10_000_000 : 6000;
const WORKERS = 6;
const PASSWORD = "fuzz password";

/** Operations no fuzzer should set off: a gravity run per request, or a restart of DNS, tells nothing about input handling and only slows the run. */
const SKIP = new Set(["POST /api/action/gravity", "POST /api/action/restartdns"]);
/** Replies that are not JSON by design. */
const NON_JSON: Array<[RegExp, RegExp]> = [
  [/^GET \/api\/teleporter$/, /^application\/zip/],
  [/^POST \/api\/action\/gravity$/, /^text\/plain/],
  [/^GET \/api\/docs$/, /^text\/html/],
  [/^GET \/api\/docs\/assets\//, /./],
];

let m: MoatProcess;
let session = { sid: "", csrf: "" };
let operations: Array<{ method: string; template: string }> = [];

function rssMiB(): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${m.proc!.pid}/status`, "utf8"))![1]) / 1024;
}

let loggingIn: Promise<void> | null = null;

/** Logs in again once, however many workers noticed the session was gone. */
function login(): Promise<void> {
  loggingIn ??= loginNow().finally(() => (loggingIn = null));
  return loggingIn;
}

async function loginNow(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const r = await m.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
    if (r.status === 200) {
      session = ((await r.json()) as { session: typeof session }).session;
      return;
    }
    await r.arrayBuffer();
    await Bun.sleep(1000 * Number(r.headers.get("retry-after") ?? "1"));
  }
  throw new Error("could not log in again");
}

beforeAll(async () => {
  // no login rate limit: the fuzzer's wrong passwords would keep its own logins out (test/api/login-attacks.test.ts checks the limit)
  m = await startMoat({
    configToml: `[webserver.api]\npassword = "${PASSWORD}"\nmax_sessions = 64\nloginRateLimit = 0\n`,
  });
  await login();
  const table = (await (await m.api("/api/endpoints", { headers: { sid: session.sid } })).json()) as {
    endpoints: Record<string, Array<{ uri: string; parameters: string }>>;
  };
  for (const [method, list] of Object.entries(table.endpoints))
    for (const e of list) operations.push({ method: method.toUpperCase(), template: e.uri + e.parameters });
  // Moat's own spellings beside Pi-hole's table
  operations.push(
    { method: "PATCH", template: "/api/config/{element}" },
    { method: "GET", template: "/api/docs/json" },
    { method: "GET", template: "/metrics" },
  );
  operations = operations.filter((o) => !SKIP.has(`${o.method} ${o.template}`));
});
afterAll(async () => {
  await m.dispose();
});

function fillPath(r: Rng, template: string): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === "element" && r() < 0.5) return pick(r, SAFE_CONFIG_ELEMENTS);
    if (name === "value" && r() < 0.5) return pct(nastyString(r));
    return pathValue(r);
  });
}

interface Outcome {
  what: string;
  problem: string | null;
}

async function checkReply(
  key: string,
  status: number,
  h: Headers | Map<string, string>,
  text: string,
): Promise<string | null> {
  if (status >= 500 || status < 100) return `status ${status}: ${text.slice(0, 200)}`;
  if (h.get("x-content-type-options") !== "nosniff") return `no security headers (status ${status})`;
  if (status === 204 || status === 304 || (status >= 300 && status < 400)) return null;
  // logout answers 410 with no body (Moat's API; 204 in compat mode); dot segments (/api/auth/session/..) lead there too
  if (status === 410 && text === "") return null;
  if (key.startsWith("HEAD ")) return null;
  const type = h.get("content-type") ?? "";
  const nonJson = NON_JSON.find(([route]) => route.test(key));
  if (nonJson && status < 400) return nonJson[1].test(type) ? null : `content-type ${type}`;
  if (!type.startsWith("application/json"))
    return `content-type ${type || "(none)"} for status ${status}: ${text.slice(0, 120)}`;
  let j: Record<string, any>;
  try {
    j = JSON.parse(text);
  } catch {
    return `reply is not JSON: ${text.slice(0, 120)}`;
  }
  if (typeof j !== "object" || j === null || Array.isArray(j)) return "reply is not a JSON object";
  if (status >= 400) {
    // Pi-hole's login and session replies carry a session object instead (compat answers)
    if (j.session && typeof j.session === "object") return null;
    if (typeof j.error?.key !== "string" || typeof j.error?.message !== "string" || !("hint" in j.error))
      return `error reply without the envelope: ${text.slice(0, 160)}`;
  }
  if (!key.startsWith("GET /metrics") && typeof j.took !== "number") return "no took";
  return null;
}

/** One request, by fetch (most), by node:http for GET bodies, or raw bytes for what no client sends. */
async function one(r: Rng): Promise<Outcome> {
  const op = pick(r, operations);
  let method = op.method;
  if (r() < 0.05) method = pick(r, ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND", "FOO"]);
  const path = fillPath(r, op.template) + query(r);
  const key = `${method} ${op.template}`;
  const h = headers(r, session.sid, session.csrf);
  const b = body(r);
  const what = `${method} ${path.slice(0, 120)} body=${b.label}`;
  const roll = r();
  if (roll < 0.06) {
    // raw: header lines and methods no client library sends
    // (every request here is complete: a server may rightly wait for a body that was announced and not sent)
    const extra = pick(r, [
      "Host: ",
      "Host: \u00e4",
      `X-Long: ${"v".repeat(20_000)}`,
      "Content-Length: abc",
      "Content-Length: 1, 2",
      "Transfer-Encoding: gzip",
      "Bad Header: x",
      ":",
      "X-Null: a\u0000b",
      "Content-Type: application/json",
    ]);
    const payload = typeof b.text === "string" && r() < 0.5 ? b.text.slice(0, 2000) : "";
    const length = payload ? `Content-Length: ${Buffer.byteLength(payload)}\r\n` : "";
    const verb = pick(r, [method, "FOO", "G E T", "get", "M-SEARCH", "CONNECT"]);
    const checked = verb === "HEAD" ? `HEAD ${op.template}` : key;
    const raw = `${verb} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n${length}Connection: close\r\n\r\n${payload}`;
    const label = `raw ${verb} ${path.slice(0, 100)} ${JSON.stringify(extra.slice(0, 40))} body=${payload.length}`;
    try {
      const rep = await rawHttp(m.httpPort, raw, 10_000);
      return { what: label, problem: await checkReply(checked, rep.status, rep.headers, rep.body) };
    } catch (e) {
      return { what: label, problem: `no reply: ${(e as Error).message.slice(0, 160)}` };
    }
  }
  try {
    if (!["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"].includes(method)) {
      // fetch turns unknown methods into GET; these go raw
      const rep = await rawHttp(
        m.httpPort,
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        10_000,
      );
      return { what, problem: await checkReply(key, rep.status, rep.headers, rep.body) };
    }
    let res: Response;
    if ((method === "GET" || method === "HEAD") && b.text !== null && typeof b.text === "string" && roll < 0.15) {
      res = await getWithBody(m.base + path, b.text, h);
    } else {
      const bodyAllowed = method !== "GET" && method !== "HEAD";
      res = await m.api(path, {
        method,
        headers: h,
        body: bodyAllowed ? b.text : null,
        signal: AbortSignal.timeout(20_000),
      });
    }
    const text = method === "HEAD" ? "" : await res.text();
    if (method === "HEAD") return { what, problem: res.status >= 500 ? `status ${res.status}` : null };
    if (res.status === 401 && h.sid === session.sid && op.template !== "/api/auth") {
      // the fuzzer logged itself out (DELETE /api/auth, a session deleted by id): log in again
      const check = await m.api("/api/auth", { headers: { sid: session.sid } });
      await check.arrayBuffer();
      if (check.status === 401) await login();
    }
    return { what, problem: await checkReply(key, res.status, res.headers, text) };
  } catch (e) {
    return { what, problem: `request failed: ${(e as Error).message.slice(0, 160)}` };
  }
}

test(
  `API fuzz (seed ${SEED}, ${LONG ? "long" : "CI"} run): every answer is the envelope, never 5xx`,
  async () => {
    const rssBefore = rssMiB();
    const deadline = Date.now() + SECONDS * 1000;
    let sent = 0;
    const problems: string[] = [];
    const worker = async (w: number) => {
      const r = rng(SEED + w * 7919);
      while (Date.now() < deadline && sent < MAX_REQUESTS && problems.length < 30) {
        sent++;
        const o = await one(r);
        if (o.problem) problems.push(`${o.what}: ${o.problem}`);
        if (m.proc!.exitCode !== null) {
          problems.push(`server exited with ${m.proc!.exitCode}`);
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    const rssAfter = rssMiB();
    const traces = m.output.split("\n").filter((l) => /^\s+at |TypeError|RangeError|internal_error/.test(l));
    console.log(
      `API fuzz: ${sent} requests over ${operations.length} operations, ${problems.length} problems, RSS ${rssBefore.toFixed(0)} -> ${rssAfter.toFixed(0)} MiB, ${traces.length} stack lines in the server log`,
    );
    expect(problems).toEqual([]);
    expect(traces.slice(0, 10)).toEqual([]);
    expect(m.proc!.exitCode).toBeNull();
    expect((await m.api("/api/info/login")).status).toBe(200);
  },
  (SECONDS + 30) * 1000,
);
