// Errors a person can cause from the dashboard's forms say what to change: a schedule window with no
// day or a time not HH:MM (worded from the route's own schema by src/api/core/validation.ts), and a
// group, domain, client or list left empty. A wrong type keeps Pi-hole's words, which its clients
// look for.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMoat, type MoatProcess } from "../harness/moat.ts";
import { call, expectError } from "../config/helpers.ts";

let m: MoatProcess;
beforeAll(async () => {
  m = await startMoat();
}, 60000);
afterAll(async () => {
  await m.dispose();
});

const schedule = (window: Record<string, unknown>) => ({
  windows: [
    { days: [1, 2], start: "21:00", end: "07:00" },
    { days: [6], start: "21:00", end: "07:00", ...window },
  ],
  services: [],
  everything: true,
});

test("a schedule window without a day, or with a time not HH:MM, is refused in words", async () => {
  expectError(
    await call(m, "PUT", "/api/schedules/groups/Default", schedule({ days: [] })),
    400,
    "bad_request",
    "window 2, days: choose at least one (the days the window starts on: 0 = Sunday … 6 = Saturday)",
    null,
  );
  expectError(
    await call(m, "PUT", "/api/schedules/groups/Default", schedule({ start: "9pm" })),
    400,
    "bad_request",
    "window 2, start: not in the expected form (HH:MM, the system's local time)",
    null,
  );
  expectError(
    await call(m, "PUT", "/api/schedules/groups/Default", schedule({ days: [7] })),
    400,
    "bad_request",
    "window 2, day 1: must be at most 6",
    null,
  );
  expect((await call(m, "GET", "/api/schedules/groups/Default")).body.groups).toEqual([
    { name: "Default", schedule: null },
  ]);
});

test("an empty group name, domain, client or list address says what to enter; a wrong type keeps Pi-hole's words", async () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ["/api/groups", { name: "" }, "Enter a name for the group: it cannot be empty"],
    ["/api/domains/deny/exact", { domain: "" }, "Enter a domain, e.g. example.com: it cannot be empty"],
    [
      "/api/clients",
      { client: "" },
      "Enter a client: an IP address, subnet, MAC address or host name: it cannot be empty",
    ],
    [
      "/api/lists?type=block",
      { address: "" },
      "Enter the list's address, e.g. https://example.com/hosts.txt: it cannot be empty",
    ],
  ];
  for (const [path, body, message] of cases)
    expectError(await call(m, "POST", path, body), 400, "bad_request", message);
  expectError(
    await call(m, "POST", "/api/groups", { name: 5 }),
    400,
    "bad_request",
    'Invalid request: No valid "name" in payload (must be either string or array)',
  );
});
