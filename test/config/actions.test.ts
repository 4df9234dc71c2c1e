// /api/action/restartdns and the flush actions, and their 403 when destructive actions are off.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { run, startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, expectError } from "./helpers.ts";

let on: MoatProcess;
let off: MoatProcess;

beforeAll(async () => {
  [on, off] = await Promise.all([
    startMoat(),
    startMoat({ env: { FTLCONF_webserver_api_allow_destructive: "false" } }),
  ]);
}, 60000);
afterAll(async () => {
  await Promise.all([on?.dispose(), off?.dispose()]);
});

function queryDb(m: MoatProcess): Database {
  const db = new Database(join(m.dataDir, "pihole-FTL.db"));
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

test("with allow_destructive off every action is 403 forbidden and nothing is flushed", async () => {
  const db = queryDb(off);
  db.run(
    "INSERT INTO network (id, hwaddr, interface, firstSeen, lastQuery, numQueries) VALUES (1, 'aa:bb:cc:dd:ee:ff', 'eth0', 1, 1, 1)",
  );
  db.close();
  const hint = "Check setting webserver.api.allow_destructive";
  expectError(
    await call(off, "POST", "/api/action/restartdns"),
    403,
    "forbidden",
    "Restarting DNS is not allowed",
    hint,
  );
  expectError(
    await call(off, "POST", "/api/action/flush/logs"),
    403,
    "forbidden",
    "Flushing the logs is not allowed",
    hint,
  );
  expectError(
    await call(off, "POST", "/api/action/flush/network"),
    403,
    "forbidden",
    "Flushing the network tables is not allowed",
    hint,
  );
  expectError(
    await call(off, "POST", "/api/action/flush/arp"),
    403,
    "forbidden",
    "Flushing the network tables is not allowed",
    hint,
  );
  const check = queryDb(off);
  expect(check.query("SELECT COUNT(*) AS n FROM network").get()).toEqual({ n: 1 });
  check.close();
});

test("flush/network and flush/arp empty the network tables", async () => {
  for (const path of ["/api/action/flush/network", "/api/action/flush/arp"]) {
    const db = queryDb(on);
    db.run(
      "INSERT INTO network (id, hwaddr, interface, firstSeen, lastQuery, numQueries) VALUES (7, '11:22:33:44:55:66', 'eth0', 1, 1, 1)",
    );
    db.run("INSERT INTO network_addresses (network_id, ip, lastSeen) VALUES (7, '192.168.1.7', 1)");
    db.close();
    const r = await call(on, "POST", path);
    expect(r.status).toBe(200);
    expect(r.body.status).toBe("success");
    const check = queryDb(on);
    expect(
      check.query("SELECT (SELECT COUNT(*) FROM network) + (SELECT COUNT(*) FROM network_addresses) AS n").get(),
    ).toEqual({ n: 0 });
    check.close();
  }
});

test("flush/logs forgets the last 24 hours of queries and keeps older ones", async () => {
  const now = Math.floor(Date.now() / 1000);
  const db = queryDb(on);
  const ins = db.prepare(
    "INSERT INTO query_storage (timestamp, type, status, domain, client) VALUES (?, 1, 2, 'x.example', '127.0.0.1')",
  );
  ins.run(now - 60);
  ins.run(now - 3 * 86400);
  db.close();
  const r = await call(on, "POST", "/api/action/flush/logs");
  expect(r.status).toBe(200);
  const check = queryDb(on);
  expect(check.query("SELECT timestamp FROM query_storage WHERE domain = 'x.example'").all()).toEqual([
    { timestamp: now - 3 * 86400 },
  ]);
  check.close();
});

test("restartdns reloads without dropping the API (and DNS keeps answering)", async () => {
  const put = await call(on, "PUT", "/api/config/dns/hosts/10.20.30.40%20restart.lan");
  expect(put.status).toBe(201);
  const r = await call(on, "POST", "/api/action/restartdns");
  expect(r.status).toBe(200);
  expect(r.body.status).toBe("success");
  expect((await call(on, "GET", "/api/config/dns/hosts")).status).toBe(200);
  if (on.output.includes("DNS listening")) {
    let answer = "";
    for (let i = 0; i < 40 && answer !== "10.20.30.40"; i++) {
      answer = (
        await run(["dig", "+short", "+tries=2", "+time=2", "-p", String(on.dnsPort), "@127.0.0.1", "restart.lan", "A"])
      ).stdout.trim();
      if (answer !== "10.20.30.40") await Bun.sleep(100);
    }
    expect(answer).toBe("10.20.30.40");
  }
}, 30000);
