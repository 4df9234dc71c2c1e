// What the list API refuses at once, in both modes where Pi-hole refuses it too: clients that are no
// address, subnet, MAC, host name or :interface; list addresses gravity cannot fetch; names that are
// no host name; regexes (wildcards) with a space; text past its documented length; and errors that
// echo only a capped part of the input. A duplicate says "already exists" (Pi-hole's words in compat).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, expectError } from "./helpers.ts";

let moat: MoatProcess;
let compat: MoatProcess;
beforeAll(async () => {
  [moat, compat] = await Promise.all([startMoat(), startMoat({ env: { FTLCONF_webserver_api_piholeCompat: "true" } })]);
});
afterAll(async () => {
  await Promise.all([moat.dispose(), compat.dispose()]);
});

describe("clients", () => {
  test("an address, a CIDR subnet with a valid prefix, a MAC, a host name or :interface", async () => {
    const good = [
      "192.0.2.7",
      "2001:db8::7",
      "192.0.2.0/24",
      "2001:db8::/48",
      "aa:bb:cc:dd:ee:0f",
      "laptop.lan",
      "kid",
      ":eth0",
    ];
    const r = await call(moat, "POST", "/api/clients", { client: good });
    expect(r.status).toBe(201);
    expect(r.json.processed.success.map((s: { item: string }) => s.item)).toEqual(good);
  });

  for (const m of ["default", "compat"] as const)
    test(`anything else is 400 and nothing is stored (${m} mode)`, async () => {
      const server = m === "default" ? moat : compat;
      const bad: Array<[string, string]> = [
        ["300.1.1.1", "expected an IP address, a CIDR subnet, a MAC address, a host name or :interface"],
        ["192.168.1.0/99", "not a valid prefix length (0 to 32)"],
        ["2001:db8::/129", "not a valid prefix length (0 to 128)"],
        ["192.168.1.0/", "not a valid prefix length (0 to 32)"],
        ["nonsense/24", "not a valid subnet address"],
        ["aa:bb:cc:dd:ee", "expected an IP address, a CIDR subnet, a MAC address, a host name or :interface"],
        ["-host.lan", "expected an IP address, a CIDR subnet, a MAC address, a host name or :interface"],
        [":", "expected an IP address, a CIDR subnet, a MAC address, a host name or :interface"],
        [":this-name-is-too-long", "expected an IP address, a CIDR subnet, a MAC address, a host name or :interface"],
      ];
      for (const [client, problem] of bad) {
        expectError(
          await call(server, "POST", "/api/clients", { client }),
          400,
          "bad_request",
          `Invalid client: ${problem}`,
          client,
        );
        expectError(
          await call(server, "PUT", `/api/clients/${encodeURIComponent(client)}`, { comment: "x" }),
          400,
          "bad_request",
          `Invalid client: ${problem}`,
          client,
        );
      }
      // one bad item refuses the whole request
      expect((await call(server, "POST", "/api/clients", { client: ["192.0.2.99", "300.1.1.1"] })).status).toBe(400);
      const all = (await call(server, "GET", "/api/clients")).json.clients.map((c: { client: string }) => c.client);
      for (const [client] of bad) expect(all).not.toContain(client);
      expect(all).not.toContain("192.0.2.99");
    });
});

describe("list addresses", () => {
  for (const m of ["default", "compat"] as const)
    test(`schemes gravity cannot fetch are refused at once (${m} mode)`, async () => {
      const server = m === "default" ? moat : compat;
      const bad: Array<[string, string]> = [
        ["ftp://lists.example/hosts.txt", "gravity cannot fetch ftp:// addresses (http://, https:// or file:// only)"],
        ["gopher://lists.example/1", "gravity cannot fetch gopher:// addresses (http://, https:// or file:// only)"],
        ["lists.example/hosts.txt", "not a URL (expected http://, https:// or file://)"],
        ["file://server/share/list.txt", "not a valid file:// address (file:///path/to/list)"],
        [
          "https://-bad.example/list",
          '"-bad.example" is not a host name (letters, digits and hyphens, no label starting or ending with a hyphen; RFC 1123 §2.1)',
        ],
        [
          "http://lists.bad-.example/l.txt",
          '"lists.bad-.example" is not a host name (letters, digits and hyphens, no label starting or ending with a hyphen; RFC 1123 §2.1)',
        ],
      ];
      for (const [address, problem] of bad) {
        expectError(
          await call(server, "POST", "/api/lists?type=block", { address }),
          400,
          "bad_request",
          `Invalid list address: ${problem}`,
          address,
        );
        expectError(
          await call(server, "PUT", `/api/lists/${encodeURIComponent(address)}?type=block`, {}),
          400,
          "bad_request",
          `Invalid list address: ${problem}`,
          address,
        );
      }
      expect((await call(server, "GET", "/api/lists")).json.lists).toEqual([]);
      for (const address of [
        "https://lists.example/hosts.txt",
        "http://192.0.2.1:8080/l.txt",
        "http://[2001:db8::1]/l.txt",
        "https://xn--mnchen-3ya.example/l.txt",
        "https://münchen.example/unicode.txt",
        "file:///etc/moat/list.txt",
      ])
        expect((await call(server, "POST", "/api/lists?type=block", { address })).status).toBe(201);
    });
});

describe("domains", () => {
  test("an exact domain is a host name: no label starts with a hyphen, at most 253 characters", async () => {
    expectError(
      await call(moat, "POST", "/api/domains/deny/exact", { domain: "-leadinghyphen.com" }),
      400,
      "bad_request",
      "Invalid domain: a label starts with a hyphen",
      "-leadinghyphen.com",
    );
    expectError(
      await call(moat, "PUT", "/api/domains/deny/exact/a.-b.com", {}),
      400,
      "bad_request",
      "Invalid domain: a label starts with a hyphen",
    );
    const long = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(62)}`; // 254 characters
    expectError(
      await call(moat, "POST", "/api/domains/deny/exact", { domain: long }),
      400,
      "bad_request",
      "Invalid domain: longer than 253 characters (254)",
    );
    expect((await call(moat, "POST", "/api/domains/deny/exact", { domain: long.slice(1) })).status).toBe(201);
    // Pi-hole's valid_domain takes a leading hyphen on a label other than the last: compat mode keeps that
    expect((await call(compat, "POST", "/api/domains/deny/exact", { domain: "-leadinghyphen.com" })).status).toBe(201);
  });

  for (const m of ["default", "compat"] as const)
    test(`a regex (a wildcard from the dashboard) with a space is refused (${m} mode)`, async () => {
      const server = m === "default" ? moat : compat;
      // what the dashboard's Wildcard kind sends for `exa mple.com`
      const wildcard = "(\\.|^)exa mple\\.com$";
      expectError(
        await call(server, "POST", "/api/domains/deny/regex", { domain: wildcard }),
        400,
        "bad_request",
        "Spaces, newlines and tabs are not allowed in domains and URLs",
        wildcard,
      );
      expect((await call(server, "GET", "/api/domains/deny/regex")).json.domains).toEqual([]);
      expect((await call(server, "POST", "/api/domains/deny/regex", { domain: "(\\.|^)example\\.com$" })).status).toBe(
        201,
      );
    });
});

describe("a regex that matches every domain", () => {
  test("is taken, as Pi-hole takes it, with a warning that says what it does; an ordinary one has none", async () => {
    for (const [type, regex, words] of [
      ["deny", ".*", "it blocks all queries of the clients in its groups"],
      ["deny", "^", "it blocks all queries of the clients in its groups"],
      ["allow", "(.*)", "it lets every query of the clients in its groups through unblocked"],
      ["deny", "^nothing-matches-this$;invert", "it blocks all queries of the clients in its groups"],
    ] as const) {
      const r = await call(moat, "POST", `/api/domains/${type}/regex`, { domain: regex });
      expect(r.status).toBe(201);
      expect(r.json.warnings).toEqual([`"${regex}" matches every domain: ${words}`]);
      // the same entry written by PUT warns as well
      const put = await call(moat, "PUT", `/api/domains/${type}/regex/${encodeURIComponent(regex)}`, {});
      expect(put.json.warnings).toEqual([`"${regex}" matches every domain: ${words}`]);
    }
    for (const regex of ["(\\.|^)ads\\.example$", "^[a-z]+$", "\\.com$", "^.*\\..*$"]) {
      const r = await call(moat, "POST", "/api/domains/deny/regex", { domain: regex });
      expect([regex, r.status, r.json.warnings]).toEqual([regex, 201, undefined]);
    }
    // compatibility mode: Pi-hole's reply, and the log says it
    const c = await call(compat, "POST", "/api/domains/deny/regex", { domain: ".*" });
    expect([c.status, Object.keys(c.json).sort()]).toEqual([201, ["domains", "processed", "took"]]);
    const log = await call(compat, "GET", "/api/logs/ftl");
    expect(log.json.log.map((l: { message: string }) => l.message)).toContainEqual(
      'Regex deny entry added: ".*" matches every domain: it blocks all queries of the clients in its groups',
    );
  });
});

describe("lengths", () => {
  test("every text field has a documented limit", async () => {
    const name = "g".repeat(5000);
    expectError(
      await call(moat, "POST", "/api/groups", { name }),
      400,
      "bad_request",
      'Invalid request: "name" longer than 255 characters',
    );
    expectError(
      await call(moat, "PUT", `/api/groups/${name}`, {}),
      400,
      "bad_request",
      'Invalid request: "name" longer than 255 characters',
    );
    expect((await call(moat, "POST", "/api/groups", { name: "g".repeat(255) })).status).toBe(201);
    expectError(
      await call(moat, "PUT", "/api/groups/short", { name }),
      400,
      "bad_request",
      'Invalid request: "name" longer than 255 characters',
    );
    expectError(
      await call(moat, "POST", "/api/groups", { name: "ok", comment: "c".repeat(1025) }),
      400,
      "bad_request",
      'Invalid request: "comment" longer than 1024 characters',
    );
    expectError(
      await call(moat, "POST", "/api/clients", { client: ["192.0.2.50", "c".repeat(254)] }),
      400,
      "bad_request",
      'Invalid request: "client" longer than 253 characters',
    );
    expectError(
      await call(moat, "POST", "/api/lists?type=block", { address: `https://x.example/${"l".repeat(2048)}` }),
      400,
      "bad_request",
      'Invalid request: "address" longer than 2048 characters',
    );
    expectError(
      await call(moat, "POST", "/api/domains/deny/regex", { domain: "r".repeat(1025) }),
      400,
      "bad_request",
      'Invalid request: "domain" longer than 1024 characters',
    );
    // the wrong type keeps the messages it had
    const wrongComment = await call(moat, "POST", "/api/groups", { name: "ok", comment: 5 });
    expect(wrongComment.status).toBe(400);
    expect(wrongComment.json.error.message).toBe("Field comment has to be of type 'string' or 'null'");
    expectError(
      await call(moat, "POST", "/api/groups", { name: 5 }),
      400,
      "bad_request",
      'Invalid request: No valid "name" in payload (must be either string or array)',
    );
    expect((await call(moat, "GET", "/api/groups")).json.groups.map((g: { name: string }) => g.name)).not.toContain(
      "ok",
    );
  });

  test("the limits are in the API's schemas (/api/docs/json)", async () => {
    const spec = (await call(moat, "GET", "/api/docs/json")).json;
    const body = (path: string, method: string) =>
      JSON.stringify(spec.paths[path][method].requestBody.content["application/json"].schema);
    expect(body("/api/groups", "post")).toContain('"maxLength":255');
    expect(body("/api/groups", "post")).toContain('"maxLength":1024');
    expect(body("/api/clients", "post")).toContain('"maxLength":253');
    expect(body("/api/lists", "post")).toContain('"maxLength":2048');
    const html = await (await moat.api("/api/docs")).text();
    expect(html).toContain("string (at most 255 characters)");
  });

  test("an error repeats at most a capped part of the input", async () => {
    // a 12 KB domain: the schema's limit answers without repeating it
    let r = await call(moat, "POST", "/api/domains/deny/exact", { domain: `${"x".repeat(12000)}.com` });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json).length).toBeLessThan(1000);
    // under the limit but invalid: the hint holds the first 500 characters and the length
    r = await call(moat, "POST", "/api/domains/deny/exact", { domain: `${"x".repeat(1000)}.com` });
    expectError(r, 400, "bad_request", "Invalid domain", `${"x".repeat(500)}… (1004 characters)`);
    // a 12 KB item in the path, which no schema sees
    r = await call(moat, "PUT", `/api/domains/deny/exact/${"x".repeat(12000)}.com`, {});
    expectError(r, 400, "bad_request", 'Invalid request: "domain" longer than 1024 characters', "12004 characters");
  });
});

describe("duplicates", () => {
  test("Moat says \"already exists\", with the spec's hint; compat keeps Pi-hole's words", async () => {
    expect((await call(moat, "POST", "/api/domains/deny/exact", { domain: "dup.example" })).status).toBe(201);
    expectError(
      await call(moat, "POST", "/api/domains/deny/exact", { domain: "dup.example" }),
      400,
      "database_error",
      'Could not add to gravity database: "dup.example" already exists',
      {
        argument: "dup.example",
        enabled: true,
        sql_msg: "UNIQUE constraint failed: domainlist.domain, domainlist.type",
      },
    );
    expect((await call(compat, "POST", "/api/groups", { name: "dup" })).status).toBe(201);
    const again = await call(compat, "POST", "/api/groups", { name: "dup" });
    expect(again.status).toBe(201);
    expect(again.json.processed.errors).toEqual([{ item: "dup", error: "UNIQUE constraint failed: group.name" }]);
  });
});
