// The vendor lookup behind /api/network/devices' macVendor: registry prefixes in any case, and no
// vendor for what is not a registered, globally administered MAC address.
import { expect, test } from "bun:test";
import { macVendor } from "./oui.ts";

test("a registered prefix names its vendor, in either case", () => {
  expect(macVendor("b8:27:eb:01:02:03")).toBe("Raspberry Pi");
  expect(macVendor("3C:22:FB:AA:BB:CC")).toBe("Apple");
  expect(macVendor("00:09:0f:00:00:01")).toBeNull(); // Fortinet: not in the home-network table
});

test("randomised (locally administered) addresses and Pi-hole's ip- keys have no vendor", () => {
  // 3e: 3c with the locally administered bit set, as a phone's private Wi-Fi address has it
  expect(macVendor("3e:22:fb:aa:bb:cc")).toBeNull();
  expect(macVendor("ip-192.168.1.5")).toBeNull();
  expect(macVendor("")).toBeNull();
});
