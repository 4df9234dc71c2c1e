// listeningMode LOCAL limits plain DNS to the machine's own subnets, not DoT: a device away from home
// (here: a network namespace whose source address is on no subnet of the machine, routed through a
// veth pair the test makes) gets no plain answer but is answered over DNS over TLS. Nothing touches
// the host's own interfaces; the namespace and the veth pair are removed afterwards.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { canMakeNamespaces, sh } from "../dhcp/lan.ts";
import { startUpstream, type Upstream } from "../harness/upstream.ts";
import { run, startTlsMoat, type TlsMoat } from "./helpers.ts";

const ok = canMakeNamespaces();
const tag = Math.random().toString(36).slice(2, 7);
const o = 10 + Math.floor(Math.random() * 240);
const ns = `mtls${tag}`,
  outer = `mt${tag}`;
const HOST = `10.78.${o}.1`,
  NEAR = `10.78.${o}.2`,
  FAR = `10.79.${o}.2`;
let t: TlsMoat | undefined;
let up: Upstream | undefined;

beforeAll(async () => {
  if (!ok) return;
  sh(["ip", "netns", "add", ns]);
  sh(["ip", "link", "add", outer, "type", "veth", "peer", "name", "eth0", "netns", ns]);
  sh(["ip", "addr", "add", `${HOST}/24`, "dev", outer]);
  sh(["ip", "link", "set", outer, "up"]);
  const inNs = (cmd: string[]) => sh(["ip", "netns", "exec", ns, ...cmd]);
  inNs(["ip", "addr", "add", `${NEAR}/24`, "dev", "eth0"]);
  inNs(["ip", "addr", "add", `${FAR}/32`, "dev", "lo"]);
  inNs(["ip", "link", "set", "lo", "up"]);
  inNs(["ip", "link", "set", "eth0", "up"]);
  inNs(["ip", "route", "add", "default", "via", HOST]);
  sh(["ip", "route", "add", `${FAR}/32`, "via", NEAR]);
  up = await startUpstream({ addr: "192.0.2.61" });
  t = await startTlsMoat({ FTLCONF_dns_upstreams: up.address, FTLCONF_dns_listeningMode: "LOCAL" });
});

afterAll(async () => {
  await t?.moat.dispose();
  await up?.stop();
  if (!ok) return;
  sh(["ip", "route", "del", `${FAR}/32`], { allowFail: true });
  sh(["ip", "link", "del", outer], { allowFail: true });
  sh(["ip", "netns", "del", ns], { allowFail: true });
});

test.skipIf(!ok)(
  "a device off the local subnets: plain DNS dropped, DNS over TLS answered",
  async () => {
    const kdig = (from: string, extra: string[], name: string) =>
      run(["ip", "netns", "exec", ns, "kdig", "-b", from, `@${HOST}`, "+retry=0", "+time=2", ...extra, name, "A"]);
    // the near address is on Moat's subnet: plain DNS answers it (the path works)
    expect((await kdig(NEAR, ["-p", String(t!.moat.dnsPort)], "near.example.test")).out).toMatch(
      /IN\s+A\s+192\.0\.2\.61/,
    );
    // the far one is not: plain DNS stays silent, DoT answers
    expect((await kdig(FAR, ["-p", String(t!.moat.dnsPort)], "far.example.test")).out).not.toMatch(
      /IN\s+A\s+192\.0\.2\.61/,
    );
    const dot = await kdig(
      FAR,
      ["-p", String(t!.dotPort), "+tls", `+tls-ca=${t!.caFile}`, "+tls-hostname=pi.hole"],
      "far.example.test",
    );
    expect(dot.out).toMatch(/IN\s+A\s+192\.0\.2\.61/);
  },
  25000,
);
