// /api/docs against the server it documents: every documented example is sent and gets its status
// and reply; every operation answers a request without a session as its security says; every reply
// the probes get has a documented status and fits the documented schema; the page shows absolute
// curl URLs. Three servers: with a password, with one in piholeCompat mode, and with none.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { check, type Schema } from "../conformance/check-schema.ts";

const PASSWORD = "correct horse battery staple";
type Json = Record<string, any>;
interface Op {
  path: string;
  method: string;
  op: Json;
}

let plain: MoatProcess, compat: MoatProcess, open: MoatProcess;
let doc: Json;
let ops: Op[];

beforeAll(async () => {
  const env = { FTLCONF_webserver_api_password: PASSWORD };
  [plain, compat, open] = await Promise.all([
    startMoat({ env }),
    startMoat({ env: { ...env, FTLCONF_webserver_api_piholeCompat: "true" } }),
    startMoat(),
  ]);
  doc = (await (await plain.api("/api/docs/json")).json()) as Json;
  ops = Object.entries(doc.paths as Json).flatMap(([path, byMethod]) =>
    Object.entries(byMethod as Json).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
});
afterAll(async () => {
  await Promise.all([plain?.dispose(), compat?.dispose(), open?.dispose()]);
});

async function sid(m: MoatProcess): Promise<string> {
  const r = await m.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  return ((await r.json()) as Json).session.sid;
}

/** The documented schema of a status, or undefined when the status is not documented at all. */
function documentedReply(op: Json, status: number): { schema?: Schema } | undefined {
  const r = op.responses?.[String(status)];
  if (!r) return undefined;
  return { schema: r.content?.["application/json"]?.schema };
}

/** Checks a reply against the operation's documentation; returns the problems. */
async function replyProblems(where: string, op: Json, res: Response, isCompat: boolean): Promise<string[]> {
  const documented = documentedReply(op, res.status);
  const text = await res.text();
  if (!documented)
    return [
      `${where}: answered ${res.status}, documented ${Object.keys(op.responses).join(", ")} (${text.slice(0, 120)})`,
    ];
  if (!documented.schema || !(res.headers.get("content-type") ?? "").startsWith("application/json")) return [];
  const body = JSON.parse(text) as Json;
  if (typeof body.took !== "number") return [`${where}: no took`];
  delete body.took;
  return check(body, documented.schema, isCompat).map((p) => `${where}: ${p}`);
}

/** The members whose values change from run to run: only their type is compared. */
const VOLATILE = new Set(["sid", "csrf", "validity", "took", "id", "date_added", "date_modified", "timestamp"]);

function exampleProblems(actual: unknown, example: unknown, at = "$"): string[] {
  if (example === null || typeof example !== "object")
    return actual === example ? [] : [`${at}: ${JSON.stringify(actual)}, example says ${JSON.stringify(example)}`];
  if (Array.isArray(example)) {
    if (!Array.isArray(actual) || actual.length !== example.length)
      return [`${at}: ${JSON.stringify(actual)}, example says ${JSON.stringify(example)}`];
    return example.flatMap((e, i) => exampleProblems(actual[i], e, `${at}[${i}]`));
  }
  if (!actual || typeof actual !== "object") return [`${at}: ${JSON.stringify(actual)} is not an object`];
  const a = actual as Json;
  const out: string[] = [];
  const keys = new Set([...Object.keys(example), ...Object.keys(a)].filter((k) => k !== "took"));
  for (const k of keys) {
    const e = (example as Json)[k];
    if (!(k in a)) out.push(`${at}.${k}: missing`);
    else if (!(k in (example as Json))) out.push(`${at}.${k}: not in the example`);
    else if (VOLATILE.has(k) && e !== null && a[k] !== null) {
      if (typeof a[k] !== typeof e) out.push(`${at}.${k}: ${typeof a[k]}, example has ${typeof e}`);
    } else out.push(...exampleProblems(a[k], e, `${at}.${k}`));
  }
  return out;
}

/** A request path for a documented path: placeholders get a value no entry has. */
const fill = (path: string) => path.replace(/\{[^}]+\}/g, "docs-test-absent");

test("the document covers every route of /api/endpoints, and login, logout and validity are documented as the server behaves", async () => {
  const endpoints = ((await (await plain.api("/api/endpoints", { headers: { sid: await sid(plain) } })).json()) as Json)
    .endpoints as Record<string, Array<{ uri: string; parameters: string }>>;
  for (const [method, list] of Object.entries(endpoints))
    for (const e of list)
      expect([method, e.uri + e.parameters, !!doc.paths[e.uri + e.parameters]?.[method]]).toEqual([
        method,
        e.uri + e.parameters,
        true,
      ]);
  const login = doc.paths["/api/auth"].post;
  expect(login.security).toEqual([]);
  expect(Object.keys(login.responses)).toEqual(["200", "400", "401", "429"]);
  expect(login.requestBody.content["application/json"].examples["log in"].value).toEqual({ password: PASSWORD });
  expect(
    login.responses["200"].content["application/json"].schema.properties.session.properties.validity,
  ).toMatchObject({ type: "integer" });
  expect(JSON.stringify(doc)).not.toContain('"format":"integer"');
  const logout = doc.paths["/api/auth"].delete;
  expect(Object.keys(logout.responses)).toEqual(["204", "401", "410"]);
});

test("every documented example gets its status and reply from the server", async () => {
  const problems: string[] = [];
  let failedLogins = 0;
  for (const { path, method, op } of ops) {
    for (const ex of (op["x-moat-examples"] as Json[] | undefined) ?? []) {
      const m = ex.passwordSet === false ? open : ex.compat ? compat : plain;
      const headers: Record<string, string> = {};
      if (ex.session ?? op.security === undefined) headers.sid = await sid(m);
      // failed logins are limited per second: never let the examples trip the limit
      if (failedLogins >= 2) await Bun.sleep(1100), (failedLogins = 0);
      const url = (ex.path ?? path) + (ex.query ? `?${new URLSearchParams(ex.query)}` : "");
      const res = await m.api(url, {
        method,
        headers,
        body: ex.body === undefined ? undefined : JSON.stringify(ex.body),
      });
      if (path === "/api/auth" && method === "POST" && res.status === 401) failedLogins++;
      const where = `${method} ${url} "${ex.summary}"`;
      if (res.status !== ex.status) {
        problems.push(`${where}: ${res.status}, documented ${ex.status}`);
        continue;
      }
      const copy = res.clone();
      problems.push(...(await replyProblems(where, op, res, m === compat)));
      if (ex.response !== undefined)
        problems.push(...exampleProblems(await copy.json(), ex.response).map((p) => `${where}: ${p}`));
    }
  }
  expect(problems).toEqual([]);
});

test("without a session every operation answers as its security says, with a documented status", async () => {
  const problems: string[] = [];
  for (const { path, method, op } of ops) {
    const res = await plain.api(fill(path), {
      method,
      body: method === "GET" || method === "DELETE" ? undefined : "{}",
    });
    const where = `${method} ${path}`;
    if (op.security === undefined && res.status !== 401)
      problems.push(`${where}: ${res.status} without a session, documented as needing one`);
    if (op.security !== undefined && res.status === 401 && !(path === "/api/auth"))
      problems.push(`${where}: 401 without a session, documented as public`);
    problems.push(...(await replyProblems(where, op, res, false)));
  }
  expect(problems).toEqual([]);
});

test("with a session, what the server answers is documented: reads, absent items and malformed bodies", async () => {
  const problems: string[] = [];
  for (const m of [plain, compat]) {
    const headers = { sid: await sid(m) };
    for (const { path, method, op } of ops) {
      const where = `${method} ${path}${m === compat ? " (piholeCompat)" : ""}`;
      if (method === "GET") {
        if (path === "/api/docs") continue;
        problems.push(
          ...(await replyProblems(`${where} as ${fill(path)}`, op, await m.api(fill(path), { headers }), m === compat)),
        );
      } else if (op.requestBody) {
        // a body that is not JSON is refused before anything happens
        problems.push(
          ...(await replyProblems(
            `${where} with a broken body`,
            op,
            await m.api(fill(path), { method, headers, body: "{" }),
            m === compat,
          )),
        );
      } else if (method === "DELETE" && path.includes("{")) {
        problems.push(
          ...(await replyProblems(
            `${where} of an absent item`,
            op,
            await m.api(fill(path), { method, headers }),
            m === compat,
          )),
        );
      }
    }
  }
  expect(problems).toEqual([]);
});

test("the page shows every operation with absolute curl URLs and loads nothing from elsewhere", async () => {
  const html = await (await plain.api("/api/docs")).text();
  expect(html.startsWith("<!doctype html>")).toBe(true);
  expect(html).not.toContain("<script");
  for (const { path } of ops) expect(html).toContain(`<code>${path.replace(/&/g, "&#38;")}</code>`);
  const curls = [...html.matchAll(/<pre>curl ([^<]*)<\/pre>/g)].map((m) => m[1]!);
  expect(curls.length).toBe(ops.reduce((n, o) => n + Math.max(1, (o.op["x-moat-examples"] ?? []).length), 0));
  for (const c of curls) expect(c).toMatch(new RegExp(`&#39;${plain.base.replace(/[.:/]/g, "\\$&")}/api/`));
  expect(html).toContain(
    `&#39;${plain.base}/api/auth&#39; -H &#39;Content-Type: application/json&#39; -d &#39;{&#34;password&#34;:&#34;correct horse battery staple&#34;}&#39;`,
  );
});
