// The checks of single config values, good and bad inputs, with the problem texts the API and the
// TOML loader report (Pi-hole's wording where Pi-hole has the setting).
import { expect, test } from "bun:test";
import {
  asciiNames,
  cnameRecord,
  filePath,
  filePathOrEmpty,
  hostsLine,
  interfaceNameOrEmpty,
  ipOrCidr,
  ipv4OrEmpty,
  ipv6OrEmpty,
  netmaskOrEmpty,
  leaseTimeOrEmpty,
  parseCnameRecord,
  parseWebPort,
  plainUpstream,
  postgresUrlOrEmpty,
  redisUrlOrEmpty,
  revServer,
  upstream,
  webPath,
  webPorts,
} from "./validators.ts";
import { isHostname } from "./host-port.ts";

const good = (check: (s: string) => string | null, ...inputs: string[]) => {
  for (const s of inputs) expect([s, check(s)]).toEqual([s, null]);
};
const bad = (check: (s: string) => string | null, problem: string | RegExp, ...inputs: string[]) => {
  for (const s of inputs)
    expect([s, check(s)]).toEqual([s, typeof problem === "string" ? problem : expect.stringMatching(problem)]);
};

test("host names: labels of letters, digits, '-' and '_', no leading or trailing '-', 253 characters at most", () => {
  for (const n of ["pi.hole", "a", "my-host.lan.", "_dmarc.example.com", "x".repeat(63), `${"a.".repeat(126)}b`])
    expect([n, isHostname(n)]).toEqual([n, true]);
  for (const n of ["", ".", "a..b", "-a.b", "a-.b", "a b", "x".repeat(64), `${"a.".repeat(127)}b`, "ä.example", "a/b"])
    expect([n, isHostname(n)]).toEqual([n, false]);
});

test("upstreams: IP[#port], or tls:// and https:// forms; a plain host name (which the forwarder skips) is refused", () => {
  good(
    upstream,
    "9.9.9.9",
    "9.9.9.9#5353",
    "2620:fe::fe",
    "2620:fe::fe#53",
    "tls://dns.quad9.net",
    "https://dns.quad9.net@9.9.9.9/dns-query",
  );
  bad(
    upstream,
    "not a valid upstream (expected IP[#port]; a server by name is tls://name or https://name/dns-query)",
    "dns.example",
    "not-an-ip",
    "not-an-ip#53",
  );
  bad(upstream, "not a valid upstream (expected IP[#port])", "", "#53", "9.9.9.9#53#1", "not a host!");
  bad(upstream, "not a valid upstream port", "9.9.9.9#0", "9.9.9.9#65536", "9.9.9.9#x");
  bad(upstream, /tls:\/\/ upstream has no path/, "tls://dns.quad9.net/x");
  bad(upstream, /not a valid upstream/, "ftp://dns.example");
});

test("plain upstreams: only IP[#port]", () => {
  good(plainUpstream, "192.168.1.1", "192.168.1.1#53", "fd00::1");
  bad(
    plainUpstream,
    "must be a plain DNS server (IP[#port])",
    "tls://dns.quad9.net",
    "https://dns.quad9.net/dns-query",
  );
  bad(plainUpstream, "not a valid upstream (expected IP[#port])", "dns.example", "");
});

test("HOSTS lines: an address and one or more names (IDN names in their ASCII form)", () => {
  good(hostsLine, "192.168.1.2 nas", "fd00::2 nas nas.lan", "  10.0.0.1\tprinter  ", "10.0.0.3 bücher.lan");
  bad(hostsLine, "not a valid HOSTS definition (too few elements)", "192.168.1.2", "");
  bad(hostsLine, "not a valid HOSTS definition (invalid IP address)", "nas 192.168.1.2", "300.1.1.1 nas");
  bad(hostsLine, 'not a valid HOSTS definition (invalid host name "bad_name!")', "10.0.0.1 nas bad_name!");
  // an IDN name is checked in its punycode form; what is not a name at all stays refused
  bad(hostsLine, 'not a valid HOSTS definition (invalid host name "bü|cher")', "10.0.0.1 bü|cher");
});

test("CNAME records: aliases, a target and an optional TTL", () => {
  good(cnameRecord, "www.lan,nas.lan", "a.lan,b.lan,nas.lan", "www.lan,nas.lan,300", "www.lan, nas.lan");
  bad(cnameRecord, "not a valid CNAME definition (too few elements)", "nas.lan", "300");
  bad(cnameRecord, "contains an empty string at position 1", "www.lan,,nas.lan");
  bad(cnameRecord, "contains newline characters", "www.lan,nas.lan\n");
  bad(cnameRecord, "not a valid CNAME definition (invalid domain)", "www.lan,nas lan");
  expect(parseCnameRecord("a.lan, b.lan,nas.lan,300")).toEqual({
    aliases: ["a.lan", "b.lan"],
    target: "nas.lan",
    ttl: 300,
  });
  expect(parseCnameRecord("www.lan,nas.lan")).toEqual({ aliases: ["www.lan"], target: "nas.lan", ttl: undefined });
});

test("reverse servers: <enabled>,<network>,<server>[,<domain>]", () => {
  good(
    revServer,
    "true,192.168.0.0/16,192.168.1.1",
    "false,10.0.0.0/8,10.0.0.1#5353,lan",
    "true,fd00::/8,fd00::1,",
    "true,192.168.1.1,192.168.1.1,lan",
  );
  bad(revServer, /too few elements/, "true,192.168.0.0/16");
  bad(revServer, /too many elements/, "true,192.168.0.0/16,192.168.1.1,lan,x");
  bad(revServer, /enabled must be true or false/, "yes,192.168.0.0/16,192.168.1.1");
  bad(revServer, /invalid network address/, "true,lan,192.168.1.1");
  bad(
    revServer,
    /invalid prefix length/,
    "true,192.168.0.0/33,192.168.1.1",
    "true,fd00::/129,fd00::1",
    "true,192.168.0.0/x,192.168.1.1",
  );
  bad(revServer, /invalid server/, "true,192.168.0.0/16,tls://dns.example", "true,192.168.0.0/16,1.1.1.1#0");
  bad(revServer, /invalid domain/, "true,192.168.0.0/16,192.168.1.1,bad domain");
});

test("addresses, networks and netmasks", () => {
  good(ipOrCidr, "192.168.1.1", "192.168.1.0/24", "fd00::/8", "::1/128");
  bad(ipOrCidr, "not a valid IP address or CIDR network", "192.168.1", "192.168.1.0/24/1", "lan");
  bad(ipOrCidr, "not a valid prefix length", "192.168.1.0/33", "fd00::/200", "10.0.0.0/");
  good(ipv4OrEmpty, "", "10.0.0.1");
  bad(ipv4OrEmpty, "not a valid IPv4 address", "fd00::1", "10.0.0");
  good(ipv6OrEmpty, "", "fd00::1");
  bad(ipv6OrEmpty, "not a valid IPv6 address", "10.0.0.1", "fd00:::1");
  good(netmaskOrEmpty, "", "255.255.255.0", "255.255.255.255", "0.0.0.0", "255.255.240.0");
  bad(netmaskOrEmpty, /one-bits are not contiguous/, "255.0.255.0", "0.255.255.255", "255.255.255.1");
  bad(netmaskOrEmpty, "not a valid IPv4 address", "255.255.255", "ffff::");
  good(leaseTimeOrEmpty, "", "3600", "45m", "12h", "2d", "1w", "infinite", "INFINITE", "365d", "52w", "31536000");
  bad(leaseTimeOrEmpty, /not a lease time/, "two days", "2 d", "1y", "-5", "12hh");
  bad(leaseTimeOrEmpty, /^longer than a year/, "366d", "53w", "31536001", "99999999d", "8761h");
});

test("interface names: Linux's, at most 15 characters, nothing a shell or ip(8) reads as more", () => {
  good(
    interfaceNameOrEmpty,
    "",
    "eth0",
    "wlan0",
    "enp3s0f1",
    "eth0.100",
    "br-lan",
    "eth0:1",
    "veth_x@if2",
    "a".repeat(15),
  );
  bad(
    interfaceNameOrEmpty,
    /^not an interface name/,
    "eth0; rm -rf /",
    "eth 0",
    "a/b",
    "$(id)",
    "a".repeat(16),
    "eth0\n",
  );
});

test("local names: Unicode names become punycode, ASCII lines stay as typed", () => {
  expect(asciiNames("192.0.2.7 🐱.lan")).toBe("192.0.2.7 xn--5o8h.lan");
  expect(asciiNames("192.0.2.7  Nas.LAN   nas")).toBe("192.0.2.7  Nas.LAN   nas");
  expect(asciiNames("kätzchen.lan,münchen.lan,300")).toBe("xn--ktzchen-5wa.lan,xn--mnchen-3ya.lan,300");
  expect(hostsLine(asciiNames("192.0.2.7 🐱.lan"))).toBeNull();
});

test("webserver.port entries: [addr:]port with o (optional) and s (TLS)", () => {
  good(webPorts, "80", "80,443s", "127.0.0.1:8080", "[::]:80o", "localhost:8080os", "pi.lan:80");
  bad(webPorts, "no port given", "", "  ");
  bad(webPorts, 'invalid port definition "65536"', "80,65536");
  bad(webPorts, 'invalid port definition "80x"', "80x");
  bad(webPorts, 'invalid port definition "bad host:80"', "bad host:80");
  expect(parseWebPort("[::1]:443s")).toEqual({ host: "::1", port: 443, optional: false, tls: true });
  expect(parseWebPort("8080o")).toEqual({ host: undefined, port: 8080, optional: true, tls: false });
  expect(parseWebPort("[zz]:80")).toBeNull();
});

test("file paths and the web root", () => {
  good(filePath, "/etc/moat/tls.pem", "relative/file name_1.txt");
  bad(filePath, 'not a valid file path ("")', "");
  bad(filePath, /not a valid file path/, "/etc/$HOME", "a;b", "ä");
  good(filePathOrEmpty, "", "/var/log/moat.log");
  bad(filePathOrEmpty, /not a valid file path/, "a|b");
  good(webPath, "/admin/", "/");
  bad(webPath, /does not start and end with a slash/, "admin/", "/admin", "");
  bad(webPath, /not a valid file path/, "/ad$min/");
});

test("Redis and PostgreSQL URLs: the scheme and a host, or empty", () => {
  good(redisUrlOrEmpty, "", "redis://10.0.0.5:6379", "rediss://user:pw@valkey.lan:6380/2");
  bad(redisUrlOrEmpty, "not a Redis URL: the scheme must be redis: or rediss:", "http://10.0.0.5", "postgres://db");
  bad(redisUrlOrEmpty, /not a valid Redis URL/, "10.0.0.5:6379", "redis//x");
  good(postgresUrlOrEmpty, "", "postgres://moat@db.lan/moat", "postgresql://db:5432/x");
  bad(postgresUrlOrEmpty, /the scheme must be postgres: or postgresql:/, "redis://db");
});
