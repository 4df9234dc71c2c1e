import { expect, test } from "bun:test";
import { interruptedSentence } from "./interrupted.ts";

const installing = {
  at: "2026-11-28T10:00:00.000Z",
  ok: false,
  version: "2.0.0",
  message: "installing version 2.0.0 into the other slot",
  installing: true,
  boot: "boot-1",
};
const running = { version: "v1.0.0", slot: "A" };

test("an install recorded in an earlier boot was cut short", () => {
  expect(interruptedSentence(installing, "boot-2", running, "B")).toBe(
    "the update to version 2.0.0 did not finish: the machine stopped while it was being written into slot B; Moat still runs version v1.0.0 (slot A), unchanged. Install the update again",
  );
  expect(interruptedSentence(installing, "boot-2", { version: "v1.0.0", slot: null }, null)).toContain(
    "written into the other slot; Moat still runs version v1.0.0, unchanged",
  );
});

test("nothing to say for an install of this boot, a finished one, or where the boot is unknown", () => {
  expect(interruptedSentence(installing, "boot-1", running, "B")).toBeNull();
  expect(interruptedSentence({ ...installing, installing: false }, "boot-2", running, "B")).toBeNull();
  expect(interruptedSentence({ ...installing, boot: "" }, "boot-2", running, "B")).toBeNull();
  expect(interruptedSentence(installing, "", running, "B")).toBeNull();
  expect(interruptedSentence(null, "boot-2", running, "B")).toBeNull();
});
