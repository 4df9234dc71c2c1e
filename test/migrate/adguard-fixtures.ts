// AdGuardHome.yaml of schema versions 24 (filtering settings under `dns`, `all_servers`, blocked
// services as a list, a client's `safesearch_enabled`), 29 (the `filtering` section, `upstream_mode`, blocked
// services with a pause schedule, `safe_search`) and 34 (rewrites with `enabled`, `http.doh`), each
// with data/leases.json and data/querylog.json beside it, as AdGuard Home keeps them. The same
// household as the Pi-hole fixtures: 127.0.0.2 is the child ("kid"), 127.0.0.3 the parent ("dad").
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { NOW, scratch } from "./fixtures.ts";

/** lines in each data/querylog.json */
export const AG_QUERIES = 30;

const quoteList = (items: string[], indent: string) => items.map((i) => `${indent}- ${JSON.stringify(i)}`).join("\n");

function yaml(version: number, upstream: string, corp: string, tls: { cert: string; key: string } | null): string {
  const hostPort = (a: string) => a.replace("#", ":");
  const upstreams = quoteList(
    [hostPort(upstream), `[/corp.example/]${hostPort(corp)}`, "quic://dns.adguard-dns.com", "# a comment"],
    "    ",
  );
  const filteringBody = (indent: string) => `${indent}protection_enabled: true
${indent}filtering_enabled: true
${indent}blocking_mode: default
${indent}parental_enabled: ${version === 24}
${indent}safebrowsing_enabled: false
${version >= 31 ? `${indent}rewrites_enabled: true\n` : ""}${indent}rewrites:
${indent}  - domain: nas.lan
${indent}    answer: 192.168.1.10${version >= 31 ? `\n${indent}    enabled: true` : ""}
${indent}  - domain: files.lan
${indent}    answer: nas.lan${version >= 31 ? `\n${indent}    enabled: true` : ""}
${indent}  - domain: pair.lan
${indent}    answer: 192.168.1.21${version >= 31 ? `\n${indent}    enabled: true` : ""}
${indent}  - domain: pair.lan
${indent}    answer: 192.168.1.22${version >= 31 ? `\n${indent}    enabled: true` : ""}
${indent}  - domain: '*.wild.lan'
${indent}    answer: 192.168.1.20${version >= 31 ? `\n${indent}    enabled: true` : ""}
${indent}  - domain: '*.cdn.lan'
${indent}    answer: nas.lan${version >= 31 ? `\n${indent}    enabled: true` : ""}
${
  version === 24
    ? `${indent}safesearch_enabled: false
${indent}blocked_services:
${indent}  - tiktok
${indent}  - not_a_moat_service`
    : `${indent}safe_search:
${indent}  enabled: false
${indent}  google: true
${indent}blocked_services:
${indent}  schedule:
${indent}    time_zone: Local${version === 29 ? `\n${indent}    mon:\n${indent}      start: 9h0m0s\n${indent}      end: 17h30m0s` : ""}
${indent}  ids:
${indent}    - tiktok
${indent}    - not_a_moat_service`
}`;
  const kidSafe =
    version === 24
      ? "      safesearch_enabled: true"
      : "      safe_search:\n        enabled: true\n        google: true\n        bing: true\n        yandex: true";
  const kidServices =
    version === 24
      ? "      blocked_services:\n        - roblox"
      : "      blocked_services:\n        schedule:\n          time_zone: Local\n        ids:\n          - roblox";
  return `http:
  address: 0.0.0.0:3000
  session_ttl: 720h${version >= 34 ? "\n  doh:\n    insecure_enabled: false" : ""}
users:
  - name: admin
    password: $2a$10$abcdefghijklmnopqrstuv
dns:
  bind_hosts:
    - 0.0.0.0
  port: 53
  upstream_dns:
${upstreams}
  bootstrap_dns:
    - 9.9.9.10
    - 149.112.112.10
${version === 24 ? "  all_servers: false\n  fastest_addr: true" : "  upstream_mode: parallel"}
  cache_size: 4194304
  allowed_clients: []
  disallowed_clients:
    - 127.0.0.9
    - 10.10.0.0/16
    - badkid
${version === 24 ? filteringBody("  ") : ""}
${version === 24 ? "" : `filtering:\n${filteringBody("  ")}\n`}tls:
  enabled: ${tls !== null}
  server_name: dns.home
  certificate_chain: ${tls ? JSON.stringify(tls.cert) : '""'}
  private_key: ${tls ? JSON.stringify(tls.key) : '""'}
filters:
  - enabled: true
    url: https://lists.example/adguard-dns-filter.txt
    name: AdGuard DNS filter
    id: 1
  - enabled: true
    url: /opt/adguardhome/my-list.txt
    name: a local file
    id: 2
whitelist_filters:
  - enabled: true
    url: https://lists.example/allow.txt
    name: allow list
    id: 3
user_rules:
  - '! my rules'
  - '||denied.example^'
  - '@@||ok.denied.example^'
  - '/^tracker[0-9]+\\.example$/'
  - 0.0.0.0 hosts-blocked.example
  - '||important.example^$important'
  - '@@||important.example^'
  - '||tagged.example^$ctag=device_tv'
dhcp:
  enabled: false
  interface_name: eth0
  local_domain_name: lan
  dhcpv4:
    gateway_ip: 192.168.1.1
    subnet_mask: 255.255.255.0
    range_start: 192.168.1.100
    range_end: 192.168.1.200
    lease_duration: 86400
clients:
  runtime_sources:
    whois: true
  persistent:
    - name: kid
      ids:
        - 127.0.0.2
        - 52:54:00:aa:bb:09
      tags:
        - user_child
      use_global_settings: false
      filtering_enabled: true
      parental_enabled: false
${kidSafe}
      use_global_blocked_services: false
${kidServices}
      upstreams: []
    - name: dad
      ids:
        - 127.0.0.3
      tags:
        - user_admin
      use_global_settings: true
      use_global_blocked_services: true
      upstreams: []
querylog:
  enabled: true
  interval: 2160h
schema_version: ${version}
`.replace(/\n{3,}/g, "\n\n");
}

/** A name in DNS wire format (RFC 1035 §3.1). */
const wireName = (name: string) => [...name.split(".").flatMap((l) => [l.length, ...Buffer.from(l)]), 0];

/**
 * The reply AdGuard Home logs as `Answer` (the message packed, base64 in the JSON): `site<i>.example` A
 * is a CNAME to edge.example and its address, AAAA one address.
 */
export function loggedReply(i: number): { base64: string; text: string } {
  const u16 = (v: number) => [v >> 8, v & 255];
  const rr = (owner: number[], type: number, rdata: number[]) => [
    ...owner,
    ...u16(type),
    0,
    1,
    0,
    0,
    1,
    44,
    ...u16(rdata.length),
    ...rdata,
  ];
  const q = `site${i}.example`;
  const a = i % 2 === 0;
  const answers = a
    ? [rr([0xc0, 12], 5, wireName("edge.example")), rr(wireName("edge.example"), 1, [192, 0, 2, i])]
    : [rr([0xc0, 12], 28, [0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), i])];
  const msg = [
    0,
    0,
    0x81,
    0x80,
    0,
    1,
    0,
    answers.length,
    0,
    0,
    0,
    0,
    ...wireName(q),
    ...u16(a ? 1 : 28),
    0,
    1,
    ...answers.flat(),
  ];
  return {
    base64: Buffer.from(msg).toString("base64"),
    text: a ? `CNAME edge.example, A 192.0.2.${i}` : `AAAA 2001:db8::${i.toString(16)}`,
  };
}

function queryLog(): string {
  return Array.from({ length: AG_QUERIES }, (_, i) =>
    JSON.stringify({
      T: new Date((NOW - 1800 + i * 10) * 1000).toISOString(),
      QH: i % 3 ? `site${i}.example` : "denied.example",
      QT: i % 2 ? "AAAA" : "A",
      QC: "IN",
      CP: "",
      Upstream: i % 3 ? "127.0.0.1:53" : "",
      ...(i % 3 ? { Answer: loggedReply(i).base64 } : {}),
      IP: i % 2 ? "127.0.0.2" : "127.0.0.3",
      Result: i % 3 ? {} : { IsFiltered: true, Reason: 3, Rules: [{ Text: "||denied.example^", FilterListID: 0 }] },
      Elapsed: 1_500_000,
    }),
  ).join("\n");
}

/** A directory like AdGuard Home's working directory: AdGuardHome.yaml and data/; the yaml's path. */
export function adguardInstall(
  version: number,
  upstream: string,
  corp: string,
  tls: { cert: string; key: string } | null = null,
): string {
  const dir = scratch(`adguard${version}`);
  mkdirSync(join(dir, "data"));
  writeFileSync(join(dir, "AdGuardHome.yaml"), yaml(version, upstream, corp, tls));
  writeFileSync(
    join(dir, "data", "leases.json"),
    JSON.stringify({
      version: 1,
      leases: [
        { expires: "", ip: "192.168.1.62", hostname: "printer", mac: "52:54:00:aa:bb:02", static: true },
        {
          expires: new Date((NOW + 3600) * 1000).toISOString(),
          ip: "192.168.1.150",
          hostname: "phone",
          mac: "52:54:00:aa:bb:03",
          static: false,
        },
      ],
    }),
  );
  writeFileSync(join(dir, "data", "querylog.json"), `${queryLog()}\n`);
  return join(dir, "AdGuardHome.yaml");
}

/** A self-signed certificate and key in PEM (openssl from Debian). */
export async function selfSigned(): Promise<{ cert: string; key: string }> {
  const dir = scratch("cert");
  const p = Bun.spawn(
    [
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-subj",
      "/CN=dns.home",
      "-days",
      "2",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ],
    { stdout: "ignore", stderr: "ignore" },
  );
  if ((await p.exited) !== 0) throw new Error("openssl failed");
  return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") };
}
