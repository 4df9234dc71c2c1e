// dhcp.ipv6: router advertisements name Moat's IPv6 address as the DNS server (RDNSS, RFC 8106), with the
// local domain (DNSSL) and the on-link prefix for SLAAC, and router lifetime 0 (Moat is not the router).
import { afterEach, describe, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { canMakeNamespaces, sh, TestLan, waitFor } from "./lan.ts";

let lan: TestLan | null = null;
let moat: MoatProcess | null = null;
afterEach(async () => {
  await moat?.dispose();
  await lan?.dispose();
  moat = lan = null;
});

describe.skipIf(!canMakeNamespaces())("IPv6 router advertisements", () => {
  test("rdisc6 sees Moat's address as the DNS server, the domain and the prefix; with dhcp.ipv6 off, nothing", async () => {
    lan = new TestLan().up();
    const v6 = `fd77:${lan.octet.toString(16)}::1`;
    sh(["ip", "-6", "addr", "add", `${v6}/64`, "dev", lan.bridge, "nodad"]);
    const dev = lan.addDevice("02:00:00:00:41:01");
    const config = (ipv6: boolean) =>
      `[dhcp]\nactive = true\nipv6 = ${ipv6}\nstart = "${lan!.prefix}.100"\nend = "${lan!.prefix}.120"\n[dns.domain]\nname = "home.arpa"\n`;
    moat = await startMoat({ configToml: config(true) });
    await waitFor(() => moat!.output.includes("DHCP: serving"), 10000, "DHCP to start");
    // the device's link-local address must be ready before it can solicit
    await waitFor(
      () => !dev.exec(["ip", "-6", "addr", "show", "dev", "eth0", "tentative"]).trim(),
      10000,
      "the device's IPv6 link-local address",
    );
    const out = dev.exec(["rdisc6", "-1", "-r", "5", "-w", "1000", "eth0"], { allowFail: true });
    expect(out).toMatch(new RegExp(`Recursive DNS server\\s*:\\s*${v6}`));
    expect(out).toMatch(/DNS search list\s*:\s*home\.arpa/);
    expect(out).toMatch(new RegExp(`Prefix\\s*:\\s*fd77:${lan.octet.toString(16)}::/64`));
    expect(out).toMatch(/Router lifetime\s*:\s*0 \(0x00000000\) seconds/);
    // the kernel took the prefix: the device has a SLAAC address in it
    await waitFor(
      () => dev.exec(["ip", "-6", "addr", "show", "dev", "eth0"]).includes(`fd77:${lan!.octet.toString(16)}:`),
      10000,
      "a SLAAC address",
    );

    // stateless DHCPv6: ISC dhclient -6 -S asks for the DNS servers and gets Moat's
    const script = lan.script(
      "dh6.sh",
      `echo "$reason|$new_dhcp6_name_servers|$new_dhcp6_domain_search" >> ${lan.path("dh6.log")}\nexit 0`,
    );
    dev.exec(
      [
        "timeout",
        "15",
        "dhclient",
        "-6",
        "-S",
        "-1",
        "-lf",
        lan.path("dh6.leases"),
        "-pf",
        lan.path("dh6.pid"),
        "-sf",
        script,
        "eth0",
      ],
      { allowFail: true },
    );
    const told = await waitFor(
      () =>
        lan!
          .read("dh6.log")
          .split("\n")
          .find((l) => l.includes(v6)),
      10000,
      "dhclient -6 to be told the DNS server",
    );
    expect(told.split("|").slice(1)).toEqual([v6, "home.arpa."]);

    await moat.dispose();
    moat = await startMoat({ configToml: config(false) });
    await waitFor(() => moat!.output.includes("DHCP: serving"), 10000, "DHCP to start");
    const none = dev.exec(["rdisc6", "-1", "-r", "2", "-w", "1000", "eth0"], { allowFail: true });
    expect(none).not.toContain("Recursive DNS server");
  });
});
