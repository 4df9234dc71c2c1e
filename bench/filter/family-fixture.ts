// The database and query mix of bench/filter/family.ts and bench/filter/policy-ab.ts: five groups, one
// client each, a block list of `list` names (70% hosts, 30% ABP), and with `family` ten blocked services, an
// open schedule window, safe search and a paused client elsewhere (PARTS picks some of them); the mix is 55%
// popular names on no list, 22% names on the hosts list, 8% subdomains of ABP entries, 10% AAAA of popular
// names, 5% service domains.
import { join } from "node:path";
import * as packet from "dns-packet";
import { openGravityDb } from "../../src/db/index.ts";
import { SERVICES } from "../../src/policies/services/catalogue.ts";

let seed = 7;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
const word = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join("");
const name = () =>
  `${word(3 + Math.floor(rand() * 8))}.${word(4 + Math.floor(rand() * 6))}.${["com", "net", "de"][Math.floor(rand() * 3)]}`;

export function makeDb(dir: string, family: boolean, LIST: number): string {
  const db = openGravityDb(dir, false);
  db.run(`INSERT INTO adlist (id, address, enabled) VALUES (1, 'http://l/1', 1)`);
  for (let g = 1; g <= 5; g++) db.run(`INSERT INTO "group" (id, enabled, name) VALUES (?, 1, ?)`, [g, `g${g}`]);
  db.run(
    `INSERT OR IGNORE INTO adlist_by_group (adlist_id, group_id) VALUES (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5)`,
  );
  for (let c = 1; c <= 5; c++) {
    db.run(`INSERT INTO client (id, ip) VALUES (?, ?)`, [c, `10.0.0.${c}`]);
    db.run(`INSERT INTO client_by_group (client_id, group_id) VALUES (?, ?)`, [c, c]);
  }
  db.run("DELETE FROM client_by_group WHERE group_id = 0");
  seed = 7;
  const ins = db.prepare("INSERT INTO gravity (domain, adlist_id) VALUES (?, 1)");
  db.transaction(() => {
    for (let i = 0; i < LIST; i++) ins.run(i % 10 < 7 ? name() : `||${name()}^`);
  })();
  const parts = (process.env.PARTS ?? "services,schedule,safesearch,pause").split(",");
  if (family && parts.includes("services")) {
    const ten = [
      "tiktok",
      "youtube",
      "instagram",
      "snapchat",
      "roblox",
      "fortnite",
      "discord",
      "twitch",
      "reddit",
      "9gag",
    ];
    for (let g = 1; g <= 5; g++)
      for (const s of ten.slice(g - 1, g + 4))
        db.run("INSERT INTO moat_group_service (group_id, service) VALUES (?, ?)", [g, s]);
  }
  // a window open all week for group 1 (so it is open during the run), safe search for groups 1 and 2
  if (family && parts.includes("schedule"))
    db.run("INSERT INTO moat_group_schedule (group_id, windows, services, everything) VALUES (1, ?, ?, 0)", [
      JSON.stringify([{ days: [0, 1, 2, 3, 4, 5, 6], start: "00:00", end: "24:00" }]),
      JSON.stringify(["steam", "minecraft"]),
    ]);
  if (family && parts.includes("safesearch"))
    db.run("INSERT INTO moat_group_safesearch (group_id, engine) VALUES (1, 'google'), (2, 'youtube')");
  if (family && parts.includes("pause"))
    db.run("INSERT INTO moat_client_pause (client, until) VALUES ('10.9.9.9', NULL)");
  db.close();
  return join(dir, "gravity.db");
}

/** the query mix, from the same names the lists hold */
export function mix(dbPath: string, QUERIES: number): Array<{ wire: Uint8Array; client: string }> {
  const db = openGravityDb(join(dbPath, ".."), false);
  const listed = db
    .query<{ domain: string }, []>("SELECT domain FROM gravity LIMIT 20000")
    .all()
    .map((r) => r.domain);
  db.close();
  const hosts = listed.filter((d) => !d.startsWith("||"));
  const abp = listed.filter((d) => d.startsWith("||")).map((d) => d.slice(2, -1));
  const popular = Array.from({ length: 2000 }, name);
  const svc = SERVICES.flatMap((s) => s.rules.map((r) => r.slice(2, -1)));
  const out: Array<{ wire: Uint8Array; client: string }> = [];
  for (let i = 0; i < QUERIES; i++) {
    const r = rand();
    const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)]!;
    let n: string;
    let type = "A";
    if (r < 0.55) n = pick(popular);
    else if (r < 0.77) n = pick(hosts);
    else if (r < 0.85) n = `www.${pick(abp)}`;
    else if (r < 0.95) {
      n = pick(popular);
      type = "AAAA";
    } else n = `www.${pick(svc)}`;
    const wire = packet.encode({
      type: "query",
      id: i & 0xffff,
      flags: packet.RECURSION_DESIRED,
      questions: [{ type: type as packet.RecordType, name: n, class: "IN" }],
    });
    out.push({ wire: new Uint8Array(wire), client: `10.0.0.${1 + (i % 5)}` });
  }
  return out;
}
