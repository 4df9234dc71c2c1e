import { expect, test } from "bun:test";
import { hasPause, scheduleWindows } from "./adguard-schedule.ts";

test("AdGuard's pause windows become Moat's blocking windows: the rest of each day", () => {
  const s = { time_zone: "Local", mon: { start: "9h0m0s", end: "17h30m0s" }, sat: { start: 0, end: 86_400_000 } };
  expect(hasPause(s)).toBe(true);
  expect(hasPause({ time_zone: "Local" })).toBe(false);
  const w = scheduleWindows(s);
  expect(w.filter((x) => x.days[0] === 1)).toEqual([
    { days: [1], start: "00:00", end: "09:00" },
    { days: [1], start: "17:30", end: "24:00" },
  ]);
  // paused all Saturday: no window; every other day blocks all day
  expect(w.filter((x) => x.days[0] === 6)).toEqual([]);
  expect(w.filter((x) => x.days[0] === 0)).toEqual([{ days: [0], start: "00:00", end: "24:00" }]);
});
