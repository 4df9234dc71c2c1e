import { expect, test } from "bun:test";
import { nameservers, stubOffProblem, usesStub } from "./resolved.ts";

const STUB =
  "# This is /run/systemd/resolve/stub-resolv.conf\nnameserver 127.0.0.53\noptions edns0 trust-ad\nsearch lan\n";
const UPSTREAM =
  "# This is /run/systemd/resolve/resolv.conf\nnameserver 192.168.1.1\nnameserver 2001:db8::1\nsearch lan\n";

test("turning the stub off is refused when systemd-resolved knows no upstream server to point the machine at", () => {
  expect(nameservers(UPSTREAM)).toEqual(["192.168.1.1", "2001:db8::1"]);
  expect(stubOffProblem(UPSTREAM)).toBeNull();
  expect(stubOffProblem("# no servers\nsearch lan\n")).toContain("knows no upstream DNS server");
  expect(stubOffProblem(STUB)).toContain("knows no upstream DNS server");
  expect(stubOffProblem(null)).toContain("is it running?");
});

test("/etc/resolv.conf uses the stub when it links to stub-resolv.conf or names 127.0.0.53", () => {
  expect(usesStub("../run/systemd/resolve/stub-resolv.conf", STUB)).toBe(true);
  expect(usesStub(null, STUB)).toBe(true);
  expect(usesStub("/run/systemd/resolve/resolv.conf", UPSTREAM)).toBe(false);
  expect(usesStub(null, "nameserver 1.1.1.1\n")).toBe(false);
});
