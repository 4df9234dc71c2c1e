// Seeded generators for the API fuzzer: path parameters, query strings, bodies and headers that are
// wrong in every way a client (or an attacker) can be wrong: wrong types, bad JSON, huge and deeply
// nested bodies, odd Unicode, bad headers. The same seed gives the same requests.

import type { Rng } from "../harness/rng.ts";

/** Percent-encoding that survives lone surrogates (sent as the bytes of an encoded surrogate, invalid UTF-8). */
export function pct(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return `${encodeURIComponent(s.toWellFormed())}%ED%A0%80`;
  }
}

export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rng, n: number) => Math.floor(r() * n);

/** Strings that have broken parsers before: odd Unicode, control characters, injections, paths. */
const NASTY = [
  "",
  " ",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "\u202e\u0645\u0631\u062d\u0628\u0627",
  "\u200b\u200d\ufeff",
  "😀👨‍👩‍👧‍👦",
  "ﬀ".repeat(50),
  "İı",
  "a\r\nb",
  "\t\u000b\f",
  "../../etc/passwd",
  "%00",
  "%",
  "%zz",
  "%ff%fe",
  "'; DROP TABLE domainlist; --",
  '" OR 1=1 --',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell probe, meant to be sent literally
  "${jndi:ldap://x}",
  "<script>alert(1)</script>",
  "\\",
  "/",
  "//",
  "*",
  "(^|\\.)x[",
  "((((((((((a))))))))))",
  "-1",
  "0",
  "1e308",
  "NaN",
  "null",
  "true",
  "[]",
  "{}",
  "example.com",
  "127.0.0.1",
  "::1",
  "fe80::1%eth0",
  "aa:bb:cc:dd:ee:ff",
  "xn--80ak6aa92e.com",
  "a".repeat(300),
  "a.".repeat(200),
];

export function nastyString(r: Rng): string {
  const roll = r();
  if (roll < 0.6) return pick(r, NASTY);
  if (roll < 0.8) {
    let s = "";
    for (let i = int(r, 40); i > 0; i--) s += String.fromCharCode(int(r, r() < 0.8 ? 0x80 : 0x10000));
    return s;
  }
  return pick(r, NASTY) + pick(r, NASTY);
}

/** Any JSON value, wrong in type as often as not. */
function anyValue(r: Rng, depth = 0): unknown {
  const roll = r();
  if (depth > 3 || roll < 0.25) return nastyString(r);
  if (roll < 0.35) return pick(r, [0, -1, 1, 2 ** 31, 2 ** 53 + 1, -0, 0.5, 1e308, -1e308, 65536, 4294967296]);
  if (roll < 0.42) return pick(r, [true, false, null]);
  if (roll < 0.6) return Array.from({ length: int(r, 5) }, () => anyValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = int(r, 5); i > 0; i--) o[pick(r, FIELD_NAMES)] = anyValue(r, depth + 1);
  return o;
}

/** Member names the routes read, so that wrong types reach the handlers' own checks. */
const FIELD_NAMES = [
  "domain",
  "comment",
  "groups",
  "enabled",
  "type",
  "kind",
  "name",
  "description",
  "client",
  "address",
  "password",
  "totp",
  "sid",
  "blocking",
  "timer",
  "config",
  "item",
  "items",
  "id",
  "ip",
  "hwaddr",
  "__proto__",
  "constructor",
  "",
  "😀",
];

/**
 * Known attacks on the address rule and the forwarding loop (test/lists/gravity-safety.test.ts,
 * test/update/guards.test.ts, test/dns/forward-loop.test.ts check their refusals), sent to every route:
 * each must answer them as it answers any input (the fuzz server's ports are not these, so an upstream
 * here may be taken). No address here is ever connected to: each is refused before a packet is sent.
 */
const ATTACKS: unknown[] = [
  { address: "http://localhost.:8080/admin/", type: "block" },
  { address: "http://LOCALHOST..:80/api/auth", comment: "x" },
  { address: "http://169.254.169.254./latest/meta-data/" },
  { address: ["http://[::ffff:169.254.169.254]/", "http://2852039166/"] },
  { url: "https://169.254.169.254/x" },
  { url: "https://[fd00:ec2::254]./" },
  { url: "https://localhost.:80/api/auth" },
  { upstreams: ["127.0.0.1#53", "::1#53"] },
  { config: { dns: { upstreams: ["0.0.0.0#53"] } } },
  { config: { dns: { upstreams: ["tls://127.0.0.1:853"] } } },
];

/** Config changes limited to keys that cannot take the server away from the fuzzer (ports, password, paths). */
const SAFE_CONFIG_PATHS = [
  "dns.upstreams",
  "dns.hosts",
  "dns.cnameRecords",
  "dns.domain.name",
  "dns.blockTTL",
  "dns.cache.size",
  "misc.nice",
  "dns.revServers",
  "dns.blocking.mode",
  "webserver.api.maxHistory",
  "dhcp.start",
  "ntp.ipv4.address",
];
export const SAFE_CONFIG_ELEMENTS = SAFE_CONFIG_PATHS.map((p) => p.replace(/\./g, "/"));

export function body(r: Rng): { text: string | Uint8Array | null; label: string } {
  const roll = r();
  if (roll < 0.08) return { text: null, label: "none" };
  if (roll < 0.4) return { text: JSON.stringify(anyValue(r)), label: "json" };
  if (roll < 0.5) {
    const seg = pick(r, SAFE_CONFIG_PATHS).split(".");
    let v: unknown = anyValue(r);
    for (let i = seg.length - 1; i >= 0; i--) v = { [seg[i]!]: v };
    return { text: JSON.stringify({ config: v }), label: "config" };
  }
  if (roll < 0.62) {
    // broken JSON: cut, doubled, stray bytes
    const good = JSON.stringify(anyValue(r));
    const cut = good.slice(0, int(r, good.length + 1));
    return {
      text: pick(r, [
        cut,
        `${good}${good}`,
        `${good},`,
        `{${cut}`,
        "{'a':1}",
        '{"a":01}',
        '{"a":1,}',
        "\u0000",
        "sid=",
        "sid=%zz",
      ]),
      label: "bad-json",
    };
  }
  if (roll < 0.7) {
    const depth = 1 + int(r, 40_000);
    return {
      text: r() < 0.5 ? "[".repeat(depth) + "]".repeat(depth) : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`,
      label: `deep-${depth}`,
    };
  }
  if (roll < 0.77) {
    const size = pick(r, [64 * 1024 - 10, 64 * 1024 + 1, 200_000, 1_000_000]);
    return { text: JSON.stringify({ domain: "x".repeat(size), comment: "y" }), label: `huge-${size}` };
  }
  if (roll < 0.85) {
    const bytes = new Uint8Array(int(r, 300));
    for (let i = 0; i < bytes.length; i++) bytes[i] = int(r, 256);
    return { text: bytes, label: "binary" };
  }
  if (roll < 0.89) return { text: JSON.stringify(pick(r, ATTACKS)), label: "attack" };
  if (roll < 0.92)
    return {
      text: JSON.stringify({ [pick(r, FIELD_NAMES)]: nastyString(r), domain: nastyString(r), comment: nastyString(r) }),
      label: "unicode",
    };
  return {
    text: `--x\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\n${nastyString(r)}\r\n--x--\r\n`,
    label: "multipart",
  };
}

export function pathValue(r: Rng): string {
  const roll = r();
  if (roll < 0.5) return pct(nastyString(r));
  if (roll < 0.6) return pick(r, ["%", "%zz", "%00", "%2F", "..", ".", "%2e%2e", "a%2Fb", "%ff"]);
  if (roll < 0.7) return "x".repeat(pick(r, [256, 2000, 8000]));
  return pick(r, [
    "allow",
    "deny",
    "exact",
    "regex",
    "block",
    "0",
    "1",
    "-1",
    "99999999999",
    "example.com",
    "127.0.0.1",
    "Default",
    "abc",
  ]);
}

export function query(r: Rng): string {
  if (r() < 0.5) return "";
  const keys = [
    "length",
    "start",
    "from",
    "until",
    "cursor",
    "draw",
    "domain",
    "client",
    "type",
    "upstream",
    "blocked",
    "full",
    "detailed",
    "count",
    "n",
    "sid",
    "color",
    "disk",
    "nextID",
    "terms",
    "partial",
    "N",
    "debug",
  ];
  const parts: string[] = [];
  for (let i = 1 + int(r, 4); i > 0; i--) {
    const v =
      r() < 0.5
        ? pick(r, ["-1", "0", "1", "abc", "true", "1e309", "99999999999999999999", "", "%", "%zz", "1,2"])
        : pct(nastyString(r));
    parts.push(`${pick(r, keys)}=${v}`);
  }
  return `?${parts.join("&")}`;
}

export function headers(r: Rng, sid: string, csrf: string): Record<string, string> {
  const h: Record<string, string> = {};
  const auth = r();
  if (auth < 0.6) h.sid = sid;
  else if (auth < 0.7) Object.assign(h, { cookie: `sid=${sid}`, "x-ftl-csrf": r() < 0.5 ? csrf : "wrong" });
  else if (auth < 0.8) h.sid = pick(r, ["", "x", "a".repeat(5000), "\t", sid.slice(1), `${sid} `]);
  else if (auth < 0.85) h.cookie = pick(r, ["sid", "sid=", ";;;", "sid=deleted", `a=b; sid=${sid}; sid=x`, "=;=;="]);
  const ct = r();
  if (ct < 0.3) h["content-type"] = "application/json";
  else if (ct < 0.4)
    h["content-type"] = pick(r, [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data",
      "multipart/form-data; boundary=x",
      "multipart/form-data; boundary=",
      "application/json; charset=latin1",
      "*/*",
      "\u00ff",
    ]);
  if (r() < 0.1) h.accept = pick(r, ["*/*", "text/html", "application/xml", ""]);
  if (r() < 0.05) h["accept-encoding"] = pick(r, ["gzip", "br", "identity;q=0", "x".repeat(3000)]);
  if (r() < 0.05) h["if-none-match"] = pick(r, ["*", '"x"', ""]);
  if (r() < 0.05) h["x-forwarded-for"] = pick(r, ["1.2.3.4", "::1", "garbage", ""]);
  if (r() < 0.05) h.range = "bytes=0-10";
  if (r() < 0.05) h.expect = "100-continue";
  return h;
}
