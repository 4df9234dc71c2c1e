// The replies Pi-hole's clients read field by field, in compatibility mode: every field PADD reads
// (and ?full=false), CPU shares over a real interval, keys left out rather than null, byte counts as
// {value, unit}, log files as strings, no Moat-only keys, and dnsmasq's counters in /api/info/ftl.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, login, type Json } from "../config/helpers.ts";

const PASSWORD = "shapes";
let m: MoatProcess;
let plain: MoatProcess;
let sid: string;
let plainSid: string;

beforeAll(async () => {
  const toml = (c: boolean) =>
    `[webserver.api]\npassword = "${PASSWORD}"\npiholeCompat = ${c}\n[webserver.api.temp]\nlimit = 70.5\n`;
  [m, plain] = await Promise.all([startMoat({ configToml: toml(true) }), startMoat({ configToml: toml(false) })]);
  [sid, plainSid] = await Promise.all([login(m, PASSWORD), login(plain, PASSWORD)]);
}, 60000);
afterAll(async () => {
  await Promise.all([m.dispose(), plain.dispose()]);
});

const get = async (path: string, s = sid, on = m): Promise<Json> => {
  const r = await call(on, "GET", path, undefined, s);
  expect(r.status).toBe(200);
  return r.body;
};

test("PADD: every field it reads, with numbers where it computes", async () => {
  const p = await get("/api/padd");
  expect(p.config.privacy_level).toBe(0);
  expect(Number.isInteger(p.system.procs)).toBe(true);
  expect(typeof p.system.ftl["%cpu"]).toBe("number");
  expect(typeof p.system.ftl["%mem"]).toBe("number");
  expect(p.sensors.hot_limit).toBe(70.5);
  for (const part of ["core", "web", "ftl"]) {
    expect(typeof p.version[part].local.branch).toBe("string");
    expect(p.version[part].remote).toEqual({ version: null, hash: null });
  }
  expect(p.version.docker).toEqual({ local: null, remote: null });
  expect(p.version.moat).toBeUndefined();
  expect(Object.keys(p.iface.v4).sort()).toEqual(["addr", "gw_addr", "name", "num_addrs", "rx_bytes", "tx_bytes"]);
  expect(Object.keys(p.iface.v6).sort()).toEqual(["addr", "gw_addr", "name", "num_addrs"]);
  expect(p.iface.v4.rx_bytes).toEqual({ value: expect.any(Number), unit: expect.any(String) });
  expect(typeof p.config.dhcp_start).toBe("string");
});

test("PADD ?full=false leaves out only the interfaces and the versions", async () => {
  const full = await get("/api/padd");
  const lean = await get("/api/padd?full=false");
  expect(Object.keys(lean).sort()).toEqual(
    Object.keys(full)
      .filter((k) => k !== "iface" && k !== "version")
      .sort(),
  );
  for (const k of ["system", "sensors", "config", "node_name", "host_model"]) expect(Object.keys(lean)).toContain(k);
});

test("%cpu is measured over a real interval, not between two requests in a row", async () => {
  await get("/api/info/ftl");
  await Bun.sleep(1200);
  // PADD asks these back to back; an idle Moat must not look busy
  const [ftl, padd, sys] = [await get("/api/info/ftl"), await get("/api/padd"), await get("/api/info/system")];
  expect(ftl.ftl["%cpu"]).toBeLessThan(50);
  expect(padd["%cpu"]).toBeLessThan(50);
  expect(sys.system.ftl["%cpu"]).toBeLessThan(50);
  expect(sys.system.cpu["%cpu"]).toBeGreaterThanOrEqual(0);
  expect(sys.system.cpu["%cpu"]).toBeLessThanOrEqual(100);
});

test("network: keys the kernel has no value for are left out, byte counts are {value, unit}", async () => {
  const routes = (await get("/api/network/routes")).routes as Json[];
  expect(routes.length).toBeGreaterThan(0);
  for (const r of routes) for (const [k, v] of Object.entries(r)) expect(`${k}=${v}`).not.toBe(`${k}=null`);
  const ifs = (await get("/api/network/interfaces")).interfaces as Json[];
  const lo = ifs.find((i) => i.name === "lo")!;
  expect(lo.stats.rx_bytes).toEqual({ value: expect.any(Number), unit: expect.any(String) });
  expect(lo.stats.tx_bytes).toEqual({ value: expect.any(Number), unit: expect.any(String) });
  for (const i of ifs) {
    expect(Object.hasOwn(i, "perm_address") && i.perm_address === null).toBe(false);
    for (const [k, v] of Object.entries(i)) expect(`${i.name}.${k}=${v}`).not.toBe(`${i.name}.${k}=null`);
  }
});

test("logs name their file as a string; /api/info/ftl has dnsmasq's counters; no Moat-only keys", async () => {
  for (const log of ["dnsmasq", "ftl", "webserver"]) expect(typeof (await get(`/api/logs/${log}`)).file).toBe("string");
  const d = (await get("/api/info/ftl")).ftl.dnsmasq;
  for (const k of [
    "dhcp_ack",
    "dhcp_nak",
    "leases_allocated_4",
    "leases_pruned_6",
    "pxe",
    "bootp",
    "tcp_connections",
    "dhcp_leasequery",
    "dhcp_lease_actve",
    "dnssec_max_work",
    "dnssec_max_sig_fail",
    "dnssec_max_crypto_use",
    "dns_cache_inserted",
  ])
    expect([k, d[k]]).toEqual([k, expect.any(Number)]);
  expect((await get("/api/info/version")).version.moat).toBeUndefined();
  // Moat's own mode keeps its build information
  expect((await get("/api/info/version", plainSid, plain)).version.moat.version).toMatch(/^v/);
  expect((await get("/api/info/sensors")).sensors.hot_limit).toBe(70.5);
});
