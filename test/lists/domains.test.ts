// /api/domains through real HTTP: CRUD, aggregates, IDN, validation and regex errors, duplicates
// (Moat's and piholeCompat replies), moving between lists, batch delete, path decoding.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, expectError } from "./helpers.ts";

let moat: MoatProcess;
beforeAll(async () => {
  moat = await startMoat();
});
afterAll(async () => {
  await moat.dispose();
});

const dbRows = (sql: string, ...args: any[]) => {
  const db = new Database(join(moat.dataDir, "gravity.db"), { readonly: true });
  try {
    return db.query(sql).all(...args) as any[];
  } finally {
    db.close();
  }
};

describe("domains", () => {
  test("POST creates with 201, Location and the entity; stored in domainlist", async () => {
    const r = await call(moat, "POST", "/api/domains/deny/exact", { domain: "Ads.Example.COM", comment: "c1" });
    expect(r.status).toBe(201);
    expect(r.headers.get("location")).toBe("/api/domains/deny/exact/ads.example.com");
    expect(r.json.domains).toHaveLength(1);
    expect(r.json.domains[0]).toMatchObject({
      domain: "ads.example.com",
      unicode: "ads.example.com",
      type: "deny",
      kind: "exact",
      comment: "c1",
      groups: [0],
      enabled: true,
    });
    expect(r.json.processed).toEqual({ success: [{ item: "ads.example.com" }], errors: [] });
    expect(dbRows("SELECT domain, type FROM domainlist WHERE domain = 'ads.example.com'")).toEqual([
      { domain: "ads.example.com", type: 1 },
    ]);
  });

  test("GET one, list, aggregates; absent item is 404", async () => {
    await call(moat, "POST", "/api/domains/allow/regex", { domain: "(^|\\.)good\\.org$" });
    let r = await call(moat, "GET", "/api/domains/deny/exact/ads.example.com");
    expect(r.status).toBe(200);
    expect(r.json.domains[0].domain).toBe("ads.example.com");
    r = await call(moat, "GET", "/api/domains");
    expect(r.json.domains.map((d: any) => d.domain)).toEqual(["ads.example.com", "(^|\\.)good\\.org$"]);
    r = await call(moat, "GET", "/api/domains/allow");
    expect(r.json.domains.map((d: any) => d.kind)).toEqual(["regex"]);
    r = await call(moat, "GET", "/api/domains/exact");
    expect(r.json.domains.map((d: any) => d.type)).toEqual(["deny"]);
    r = await call(moat, "GET", "/api/domains/deny/regex");
    expect(r.json.domains).toEqual([]);
    r = await call(moat, "GET", "/api/domains/deny/exact/nothing.example");
    expectError(r, 404, "not_found", "Not found");
  });

  test("writes to aggregates and misplaced items are uri_error", async () => {
    expectError(
      await call(moat, "POST", "/api/domains/allow", { domain: "x.com" }),
      400,
      "uri_error",
      "Invalid request: Specify list to modify more precisely",
    );
    expectError(
      await call(moat, "DELETE", "/api/domains/exact/x.com"),
      400,
      "uri_error",
      "Invalid request: Specify list to modify more precisely",
    );
    expectError(
      await call(moat, "POST", "/api/domains/deny/exact/x.com", { domain: "x.com" }),
      400,
      "uri_error",
      "Invalid request: Specify item in payload, not as URI parameter",
    );
    expectError(
      await call(moat, "PUT", "/api/domains/deny/exact", {}),
      400,
      "uri_error",
      "Invalid request: Specify item in URI",
    );
  });

  test("payload errors", async () => {
    expectError(await call(moat, "POST", "/api/domains/deny/exact"), 400, "bad_request", "No request body data");
    expectError(
      await call(moat, "POST", "/api/domains/deny/exact", "{nope"),
      400,
      "bad_request",
      "Invalid request body data (no valid JSON), error at hint",
    );
    const noDomain = 'Invalid request: No valid "domain" in payload (must be either string or array)';
    expectError(await call(moat, "POST", "/api/domains/deny/exact", { comment: "x" }), 400, "bad_request", noDomain);
    expectError(await call(moat, "POST", "/api/domains/deny/exact", { domain: 5 }), 400, "bad_request", noDomain);
    expectError(await call(moat, "POST", "/api/domains/deny/exact", { domain: [] }), 400, "bad_request", noDomain);
    expectError(
      await call(moat, "POST", "/api/domains/deny/exact", { domain: "a b.com" }),
      400,
      "bad_request",
      "Spaces, newlines and tabs are not allowed in domains and URLs",
      "a b.com",
    );
    expectError(
      await call(moat, "POST", "/api/domains/deny/exact", { domain: "bad_-.com!" }),
      400,
      "bad_request",
      "Invalid domain",
      "bad_-.com!",
    );
    expectError(
      await call(moat, "POST", "/api/domains/deny/exact", { domain: "a..b" }),
      400,
      "bad_request",
      "Invalid domain",
      "a..b",
    );
    expectError(
      await call(moat, "POST", "/api/domains/deny/exact", { domain: `${"x".repeat(64)}.com` }),
      400,
      "bad_request",
      "Invalid domain",
    );
    expectError(
      await call(moat, "POST", "/api/domains/deny/exact", { domain: "a\u0000\u2028.com" }),
      400,
      "bad_request",
      "Invalid request: Invalid domain name",
    );
  });

  test("IDN input is stored as lowercase punycode and shown as unicode", async () => {
    const r = await call(moat, "POST", "/api/domains/deny/exact", { domain: "Bücher.Example" });
    expect(r.status).toBe(201);
    expect(r.json.domains[0]).toMatchObject({ domain: "xn--bcher-kva.example", unicode: "bücher.example" });
    expect(dbRows("SELECT domain FROM domainlist WHERE domain LIKE 'xn--%'")).toEqual([
      { domain: "xn--bcher-kva.example" },
    ]);
    // already punycoded emoji names are accepted as typed (FTL#2837)
    expect((await call(moat, "POST", "/api/domains/deny/exact", { domain: "xn--i-7iq.ws" })).status).toBe(201);
  });

  test("regex validation errors and extensions", async () => {
    expectError(
      await call(moat, "POST", "/api/domains/deny/regex", { domain: "abc[" }),
      400,
      "regex_error",
      "Regex validation failed",
      "Missing ']'",
    );
    expectError(
      await call(moat, "POST", "/api/domains/deny/regex", { domain: "(abc" }),
      400,
      "regex_error",
      "Regex validation failed",
      "Missing ')'",
    );
    expectError(
      await call(moat, "POST", "/api/domains/deny/regex", { domain: "abc;reply=BOGUS" }),
      400,
      "regex_error",
      "Regex validation failed",
      'Unknown reply type "BOGUS"',
    );
    expectError(
      await call(moat, "POST", "/api/domains/deny/regex", { domain: "abc;querytype=XX" }),
      400,
      "regex_error",
      "Regex validation failed",
    );
    const ok = await call(moat, "POST", "/api/domains/deny/regex", {
      domain: ["^ads;querytype=A,AAAA", "^trk;invert", "^x;reply=NXDOMAIN", "^y;reply=1.2.3.4"],
    });
    expect(ok.status).toBe(201);
    expect(ok.json.processed.success).toHaveLength(4);
  });

  test("duplicate add: Moat's 400 database_error with hint {argument, enabled, sql_msg}; nothing half-added", async () => {
    const r = await call(moat, "POST", "/api/domains/deny/exact", {
      domain: ["new-one.example", "ads.example.com"],
      enabled: false,
    });
    expectError(r, 400, "database_error", 'Could not add to gravity database: "ads.example.com" already exists', {
      argument: "ads.example.com",
      enabled: false,
      sql_msg: "UNIQUE constraint failed: domainlist.domain, domainlist.type",
    });
    expect(dbRows("SELECT 1 FROM domainlist WHERE domain = 'new-one.example'")).toEqual([]);
  });

  test("PUT replaces fields and moves an entry between lists; DELETE 204 then 404", async () => {
    let r = await call(moat, "PUT", "/api/domains/deny/exact/ads.example.com", {
      comment: "changed",
      enabled: false,
      groups: [0],
    });
    expect(r.status).toBe(200);
    expect(r.json.domains[0]).toMatchObject({ comment: "changed", enabled: false });
    r = await call(moat, "PUT", "/api/domains/allow/exact/ads.example.com", { type: "deny", kind: "exact" });
    expect(r.status).toBe(200);
    expect(r.json.domains[0]).toMatchObject({ type: "allow", kind: "exact", enabled: true, comment: null });
    expect(dbRows("SELECT type FROM domainlist WHERE domain = 'ads.example.com'")).toEqual([{ type: 0 }]);
    r = await call(moat, "PUT", "/api/domains/allow/exact/ads.example.com", { type: "deny" });
    expect(r.json.processed.errors[0].error).toBe("Field oldkind missing from request");
    r = await call(moat, "PUT", "/api/domains/allow/exact/ads.example.com", { groups: [99] });
    expect(r.status).toBe(400);
    r = await call(moat, "DELETE", "/api/domains/allow/exact/ads.example.com");
    expect(r.status).toBe(204);
    r = await call(moat, "DELETE", "/api/domains/allow/exact/ads.example.com");
    expectError(r, 404, "not_found", "Not found");
  });

  test("search matches regex entries as the filter reads them (POSIX classes, ;invert)", async () => {
    await call(moat, "POST", "/api/domains/deny/regex", { domain: "^tracker[[:digit:]]+\\.search\\.test$" });
    await call(moat, "POST", "/api/domains/deny/regex", { domain: "search\\.test$;invert" });
    const hit = await call(moat, "GET", "/api/search/tracker7.search.test");
    expect(hit.status).toBe(200);
    const found = hit.json.search.domains.map((d: any) => d.domain);
    expect(found).toContain("^tracker[[:digit:]]+\\.search\\.test$");
    expect(found).not.toContain("search\\.test$;invert");
    const inverted = await call(moat, "GET", "/api/search/other.example");
    expect(inverted.json.search.domains.map((d: any) => d.domain)).toContain("search\\.test$;invert");
    await call(
      moat,
      "DELETE",
      `/api/domains/deny/regex/${encodeURIComponent("^tracker[[:digit:]]+\\.search\\.test$")}`,
    );
    await call(moat, "DELETE", `/api/domains/deny/regex/${encodeURIComponent("search\\.test$;invert")}`);
  });

  test("percent-encoded items: %2F and + decode like Pi-hole", async () => {
    const re = "^a/b+c$";
    let r = await call(moat, "POST", "/api/domains/deny/regex", { domain: re });
    expect(r.headers.get("location")).toBe(`/api/domains/deny/regex/${encodeURIComponent(re)}`);
    r = await call(moat, "GET", `/api/domains/deny/regex/${encodeURIComponent(re)}`);
    expect(r.json.domains[0].domain).toBe(re);
    // a literal + in the path is a space (form decoding)
    r = await call(moat, "GET", "/api/domains/deny/regex/^a/b+c$");
    expect(r.status).toBe(404);
  });

  test("batchDelete: 204 when something went, 404 when nothing, exact messages", async () => {
    await call(moat, "POST", "/api/domains/deny/exact", { domain: ["b1.example", "b2.example"] });
    let r = await call(moat, "POST", "/api/domains:batchDelete", [
      { item: "b1.example", type: "deny", kind: "exact" },
      { item: "b2.example", type: "DENY", kind: "Exact" },
    ]);
    expect(r.status).toBe(204);
    expect(dbRows("SELECT 1 FROM domainlist WHERE domain LIKE 'b_.example'")).toEqual([]);
    r = await call(moat, "POST", "/api/domains:batchDelete", [{ item: "b1.example", type: "deny", kind: "exact" }]);
    expect(r.status).toBe(404);
    expectError(
      await call(moat, "POST", "/api/domains:batchDelete", { item: "x" }),
      400,
      "bad_request",
      "Invalid request: Batch delete requires an array of objects",
    );
    expectError(
      await call(moat, "POST", "/api/domains:batchDelete", [{ item: 1 }]),
      400,
      "bad_request",
      'Invalid request: Batch delete requires an array of objects with "item" as string',
    );
    expectError(
      await call(moat, "POST", "/api/domains:batchDelete", [{ item: "x" }]),
      400,
      "bad_request",
      'Invalid request: Batch delete requires an array of objects with "type" and "kind" as string',
    );
    expectError(
      await call(moat, "POST", "/api/domains:batchDelete", [{ item: "x", type: "deny", kind: "fuzzy" }]),
      400,
      "bad_request",
      'Invalid request: Batch delete requires an valid combination of "type" and "kind" for each object',
    );
  });
});

describe("piholeCompat", () => {
  let compat: MoatProcess;
  beforeAll(async () => {
    compat = await startMoat({ env: { FTLCONF_webserver_api_piholeCompat: "true" } });
  });
  afterAll(async () => {
    await compat.dispose();
  });

  test("duplicate add is 201 with processed.errors, absent GET is 200 with an empty array", async () => {
    expect((await call(compat, "POST", "/api/domains/deny/exact", { domain: "dup.example" })).status).toBe(201);
    const r = await call(compat, "POST", "/api/domains/deny/exact", { domain: ["dup.example", "fresh.example"] });
    expect(r.status).toBe(201);
    expect(r.json.processed).toEqual({
      success: [{ item: "fresh.example" }],
      errors: [{ item: "dup.example", error: "UNIQUE constraint failed: domainlist.domain, domainlist.type" }],
    });
    const g = await call(compat, "GET", "/api/domains/deny/exact/absent.example");
    expect(g.status).toBe(200);
    expect(g.json.domains).toEqual([]);
  });
});
