import { expect, test } from "bun:test";
import { readAdGuard } from "./adguard.ts";

const yaml = (allowed: string[], disallowed: string[]) => `schema_version: 29
dns:
  upstream_dns:
    - 9.9.9.9
  allowed_clients: ${JSON.stringify(allowed)}
  disallowed_clients: ${JSON.stringify(disallowed)}
`;

test("allowed_clients and disallowed_clients become dns.access; a bad entry is named, not dropped silently", () => {
  const p = readAdGuard(yaml([], ["192.168.1.9", "10.0.0.0/8", "kid", "bad entry"]), "AdGuardHome.yaml", null, false);
  expect(p.settings.get("dns.access.disallowed")).toEqual(["192.168.1.9", "10.0.0.0/8", "kid"]);
  expect(p.carried).toContain("3 disallowed clients");
  expect(p.notCarried.map((n) => n.item).join("\n")).toContain("bad entry");
});

test("with allowed_clients, AdGuard Home ignores disallowed_clients: so does the migration, saying so", () => {
  const p = readAdGuard(yaml(["192.168.1.0/24", "mum"], ["192.168.1.9"]), "AdGuardHome.yaml", null, false);
  expect(p.settings.get("dns.access.allowed")).toEqual(["192.168.1.0/24", "mum"]);
  expect(p.settings.get("dns.access.disallowed")).toBeUndefined();
  expect(p.carried).toContain("2 allowed clients");
  expect(p.notCarried).toContainEqual({
    item: "1 disallowed client",
    why: "AdGuard Home ignores disallowed_clients while allowed_clients has entries",
  });
});

test("blocked_hosts beyond AdGuard Home's defaults is named as not carried", () => {
  const text = `${yaml([], [])}  blocked_hosts: [version.bind, id.server, hostname.bind, tracker.example]\n`;
  const p = readAdGuard(text, "AdGuardHome.yaml", null, false);
  expect(p.notCarried.map((n) => n.item).filter((i) => i.startsWith("blocked host"))).toEqual([
    "blocked host tracker.example",
  ]);
});
