// Schedules on their own: windows compiled into the week's minutes (crossing midnight and the week's end),
// the clock that opens and closes them at their minute, and local wall-clock hours across a DST change.
process.env.TZ = "Europe/Berlin";
import { describe, expect, test } from "bun:test";
import { compileWindows, minuteOfWeek, ScheduleClock, windowProblem, WEEK_MINUTES } from "./windows.ts";

const at = (bits: Uint32Array, day: number, hh: number, mm: number) => {
  const m = (day * 1440 + hh * 60 + mm) % WEEK_MINUTES;
  return (bits[m >>> 5]! & (1 << (m & 31))) !== 0;
};

describe("compileWindows", () => {
  test("a school-night window crosses midnight into the next morning", () => {
    const b = compileWindows([{ days: [1, 2, 3, 4], start: "21:00", end: "07:00" }]);
    expect(at(b, 1, 20, 59)).toBe(false);
    expect(at(b, 1, 21, 0)).toBe(true);
    expect(at(b, 1, 23, 59)).toBe(true);
    expect(at(b, 2, 0, 0)).toBe(true);
    expect(at(b, 2, 6, 59)).toBe(true);
    expect(at(b, 2, 7, 0)).toBe(false);
    // Thursday night runs into Friday morning; Friday night is free
    expect(at(b, 5, 6, 59)).toBe(true);
    expect(at(b, 5, 21, 0)).toBe(false);
    expect(at(b, 0, 22, 0)).toBe(false);
  });

  test("Saturday night wraps into Sunday; 24:00 is midnight; an invalid window adds nothing", () => {
    const b = compileWindows([
      { days: [6], start: "22:00", end: "02:00" },
      { days: [3], start: "12:00", end: "24:00" },
      { days: [2], start: "25:00", end: "26:00" },
    ]);
    expect(at(b, 6, 22, 0)).toBe(true);
    expect(at(b, 0, 1, 59)).toBe(true);
    expect(at(b, 0, 2, 0)).toBe(false);
    expect(at(b, 3, 23, 59)).toBe(true);
    expect(at(b, 4, 0, 0)).toBe(false);
    expect(b.slice(0).some((w, i) => i * 32 >= 2 * 1440 && i * 32 < 3 * 1440 - 32 && w !== 0)).toBe(false);
  });

  test("windowProblem names what is wrong", () => {
    expect(windowProblem({ days: [1], start: "08:00", end: "09:00" })).toBeNull();
    expect(windowProblem({ days: [], start: "08:00", end: "09:00" })).toContain("day");
    expect(windowProblem({ days: [7], start: "08:00", end: "09:00" })).toContain("Sunday");
    expect(windowProblem({ days: [1], start: "24:00", end: "09:00" })).toContain("start");
    expect(windowProblem({ days: [1], start: "08:00", end: "9:00" })).toContain("end");
  });
});

describe("ScheduleClock", () => {
  test("a window opens and closes at its minute, for the groups it belongs to only", () => {
    // a Wednesday, local time
    const base = new Date(2026, 10, 25, 10, 0, 0, 0);
    expect(base.getDay()).toBe(3);
    const minutes = compileWindows([{ days: [3], start: "10:01", end: "10:02" }]);
    const clock = new ScheduleClock(
      [
        { bit: 1, listBit: -1, minutes, everything: false },
        { bit: 2, listBit: -1, minutes, everything: true },
      ],
      1,
    );
    const groupA = Uint32Array.of(0b011),
      groupB = Uint32Array.of(0b100),
      none = Uint32Array.of(0b001);
    const t = (s: number) => base.getTime() + s * 1000;
    expect(clock.openGroups(groupA, t(59.999))).toBeNull();
    expect([...(clock.openGroups(groupA, t(60)) ?? [])]).toEqual([0b010]);
    expect(clock.blocksEverything(clock.openGroups(groupA, t(61))!)).toBe(false);
    expect(clock.blocksEverything(clock.openGroups(groupB, t(90))!)).toBe(true);
    expect(clock.openGroups(none, t(90))).toBeNull();
    expect(clock.openGroups(groupA, t(119.999))).not.toBeNull();
    expect(clock.openGroups(groupA, t(120))).toBeNull();
  });

  test("local hours hold across the spring DST change (Europe/Berlin, 29 March 2026)", () => {
    // 01:59 CET is followed by 03:00 CEST; a window at 08:00–09:00 local is 07:00–08:00 UTC that day
    const clock = new ScheduleClock(
      [
        {
          bit: 0,
          listBit: -1,
          minutes: compileWindows([{ days: [0], start: "08:00", end: "09:00" }]),
          everything: true,
        },
      ],
      1,
    );
    const g = Uint32Array.of(1);
    expect(minuteOfWeek(Date.UTC(2026, 2, 29, 6, 30))).toBe(8 * 60 + 30);
    expect(clock.openGroups(g, Date.UTC(2026, 2, 29, 6, 30))).not.toBeNull();
    expect(clock.openGroups(g, Date.UTC(2026, 2, 29, 7, 30))).toBeNull();
    // the week before (CET, UTC+1) the same window is 07:00–08:00 UTC
    expect(clock.openGroups(g, Date.UTC(2026, 2, 22, 7, 30))).not.toBeNull();
    expect(clock.openGroups(g, Date.UTC(2026, 2, 22, 6, 30))).toBeNull();
  });
});
