// Settings the API took although they could not work: a DHCP range across two networks, a lease of
// 99,999,999 days, a static lease outside the range's network, a shell command as an interface name,
// and a local name in Unicode stored as typed (queries ask for its punycode, so it never answered).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { runDig } from "../dns/helpers.ts";
import { call, expectError } from "./helpers.ts";

let m: MoatProcess;
beforeAll(async () => {
  m = await startMoat();
}, 60000);
afterAll(async () => {
  await m.dispose();
});

const patch = (config: unknown) => call(m, "PATCH", "/api/config", { config });
const dhcp = async () => (await call(m, "GET", "/api/config/dhcp")).body.config.dhcp;

test("a DHCP range from one network to another is refused in words, and nothing is stored", async () => {
  expectError(
    await patch({ dhcp: { start: "10.0.0.100", end: "192.168.1.150" } }),
    400,
    "bad_request",
    "Config item validation failed",
    // the network is the interface's where one holds 10.0.0.100, else a /16
    expect.stringMatching(
      /^dhcp\.end: 192\.168\.1\.150 is not in the network of dhcp\.start 10\.0\.0\.100, 10\.[\d.]+\/\d+ \(.+\): a DHCP range lies in one network$/,
    ),
  );
  expectError(
    await patch({ dhcp: { start: "192.168.1.150", end: "192.168.1.100" } }),
    400,
    "bad_request",
    "Config item validation failed",
    "dhcp.end: the range ends before it starts (192.168.1.100 is before dhcp.start 192.168.1.150)",
  );
  // the netmask set names the network
  expectError(
    await patch({ dhcp: { start: "192.168.1.100", end: "192.168.2.10", netmask: "255.255.255.0" } }),
    400,
    "bad_request",
    "Config item validation failed",
    "dhcp.end: 192.168.2.10 is not in the network of dhcp.start 192.168.1.100, 192.168.1.0/24 (dhcp.netmask): a DHCP range lies in one network",
  );
  expect(await dhcp()).toMatchObject({ start: "", end: "", netmask: "" });
  expect((await patch({ dhcp: { start: "192.168.1.100", end: "192.168.1.150" } })).status).toBe(200);
});

test("a static lease outside the range's network is refused; one inside is taken", async () => {
  // TEST-NET-2 (RFC 5737): no interface of the machine running the test holds it
  expect((await patch({ dhcp: { start: "198.51.100.100", end: "198.51.100.150", netmask: "" } })).status).toBe(200);
  expectError(
    await call(m, "PUT", `/api/config/dhcp/hosts/${encodeURIComponent("aa:bb:cc:dd:ee:ff,10.9.9.9,printer")}`),
    400,
    "bad_request",
    "Config item validation failed",
    "dhcp.hosts[0]: 10.9.9.9 is outside the network of the DHCP range, 198.51.0.0/16 (no interface holds it: at most a /16): a device there would not reach it",
  );
  const inside = "aa:bb:cc:dd:ee:ff,198.51.100.20,printer";
  expect((await call(m, "PUT", `/api/config/dhcp/hosts/${encodeURIComponent(inside)}`)).status).toBe(201);
  // moving the range away from a lease is refused as well
  expectError(
    await patch({ dhcp: { start: "203.0.113.100", end: "203.0.113.150" } }),
    400,
    "bad_request",
    "Config item validation failed",
  );
  expect((await dhcp()).hosts).toEqual([inside]);
});

test("a lease time beyond a year is refused; a year and infinite are taken", async () => {
  expectError(
    await patch({ dhcp: { leaseTime: "99999999d" } }),
    400,
    "bad_request",
    "Config item validation failed",
    'dhcp.leaseTime: longer than a year ("99999999d"): at most 365d, 52w or 31536000 seconds, or infinite for leases that never end',
  );
  for (const ok of ["365d", "infinite", "12h"]) expect((await patch({ dhcp: { leaseTime: ok } })).status).toBe(200);
});

test("an interface name with a shell command in it is refused; eth0 and a VLAN name are taken", async () => {
  expectError(
    await patch({ dns: { interface: "eth0; rm -rf /" } }),
    400,
    "bad_request",
    "Config item validation failed",
    'dns.interface: not an interface name ("eth0; rm -rf /"): at most 15 letters, digits and . _ - : @, like eth0 or wlan0',
  );
  expectError(
    await patch({ dns: { interface: "a-name-too-long0" } }),
    400,
    "bad_request",
    "Config item validation failed",
  );
  for (const ok of ["eth0.100", "enp3s0", ""]) expect((await patch({ dns: { interface: ok } })).status).toBe(200);
});

test("a local name in Unicode is stored as punycode, and DNS answers it", async () => {
  expect((await call(m, "PUT", `/api/config/dns/hosts/${encodeURIComponent("192.0.2.7 🐱.lan")}`)).status).toBe(201);
  expect((await call(m, "GET", "/api/config/dns/hosts")).body.config.dns.hosts).toEqual(["192.0.2.7 xn--5o8h.lan"]);
  // the same line typed again is the one there; typed to delete, it is found
  expect((await call(m, "PUT", `/api/config/dns/hosts/${encodeURIComponent("192.0.2.7 🐱.lan")}`)).status).toBe(400);
  expect((await patch({ dns: { cnameRecords: ["kätzchen.lan,🐱.lan"] } })).status).toBe(200);
  expect((await call(m, "GET", "/api/config/dns/cnameRecords")).body.config.dns.cnameRecords).toEqual([
    "xn--ktzchen-5wa.lan,xn--5o8h.lan",
  ]);
  const out = await runDig([
    "+short",
    "+time=2",
    "+tries=2",
    "-p",
    String(m.dnsPort),
    "@127.0.0.1",
    "xn--5o8h.lan",
    "A",
  ]);
  expect(out.trim()).toBe("192.0.2.7");
  expect((await call(m, "DELETE", `/api/config/dns/hosts/${encodeURIComponent("192.0.2.7 🐱.lan")}`)).status).toBe(204);
  expect((await call(m, "GET", "/api/config/dns/hosts")).body.config.dns.hosts).toEqual([]);
});
