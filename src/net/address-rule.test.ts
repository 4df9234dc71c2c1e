// The address rule on its own: every spelling of a refused host is refused when written, and a name is
// checked at the address it resolves to (test/lists/gravity-safety.test.ts and test/update/guards.test.ts
// check the same through the API).
import { expect, test } from "bun:test";
import { AddressRefused, checkedAddress, ownWebPorts, refusedLiteral } from "./address-rule.ts";

const OWN = [8080, 443];
const refused = (url: string) => refusedLiteral(new URL(url), OWN);

test("link-local and Moat's own web server, in every spelling", () => {
  for (const url of [
    "http://169.254.169.254/",
    "http://169.254.169.254./",
    "http://2852039166/",
    "http://0251.0376.0251.0376/",
    "http://[::ffff:169.254.169.254]/",
    "http://[fe80::1]/",
    "http://[fd00:ec2::254]/",
  ])
    expect(refused(url), url).toMatch(/is a link-local address/);
  for (const url of [
    "http://localhost.:8080/admin/",
    "http://LOCALHOST..:8080/",
    "http://moat.localhost:8080/",
    "https://localhost./",
    "http://127.0.0.1:8080/",
    "http://127.1:8080/",
    "http://2130706433:8080/",
    "http://0x7f.1:8080/",
    "http://[::ffff:127.0.0.1]:8080/",
    "http://[::1]:8080/",
    "http://0.0.0.0:8080/",
  ])
    expect(refused(url), url).toMatch(/is Moat's own web server/);
});

test("loopback and LAN servers on other ports, and names, are left to the connection", () => {
  for (const url of [
    "http://127.0.0.1:9000/list.txt",
    "http://localhost.:9000/",
    "http://192.168.1.10:8080/",
    "https://example.com/",
  ])
    expect(refused(url), url).toBeNull();
  expect(ownWebPorts("127.0.0.1:8080,443s, [::]:8443os")).toEqual([8080, 443, 8443]);
});

test("at connect time: the checked address, *.localhost without a lookup", async () => {
  expect(await checkedAddress(new URL("http://app.localhost.:9000/"), OWN)).toBe("127.0.0.1");
  await expect(checkedAddress(new URL("http://app.localhost.:8080/"), OWN)).rejects.toThrow(
    "app.localhost resolves to 127.0.0.1 port 8080 is Moat's own web server",
  );
  await expect(checkedAddress(new URL("https://[::ffff:a9fe:a9fe]/"), OWN)).rejects.toBeInstanceOf(AddressRefused);
});
