// AdGuard Home's blocked-services schedule names when blocking pauses, per weekday (start and end as a
// duration since midnight: "9h30m0s", or milliseconds); Moat's schedule names when it blocks
// (src/api/family/schedules.ts). So the windows here are the rest of each day.

export interface AdgSchedule {
  time_zone?: string;
  [day: string]: unknown;
}

const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

/** minutes since midnight of AdGuard's "9h30m0s" or milliseconds, or null */
function minutesOf(v: unknown): number | null {
  if (typeof v === "number") return Math.round(v / 60000);
  if (typeof v !== "string") return null;
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+(?:\.\d+)?)s)?$/.exec(v.trim());
  if (!m || v.trim() === "") return null;
  return Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0) + Math.round(Number(m[3] ?? 0) / 60);
}

const hhmm = (min: number) => `${String(Math.floor(min / 60)).padStart(2, "0")}:${String(min % 60).padStart(2, "0")}`;

/** Whether the schedule pauses blocking on any day (one with only a time zone never does). */
export const hasPause = (s: AdgSchedule) => DAYS.some((d) => s[d] !== undefined);

export function scheduleWindows(s: AdgSchedule): Array<{ days: number[]; start: string; end: string }> {
  const out: Array<{ days: number[]; start: string; end: string }> = [];
  DAYS.forEach((day, i) => {
    const d = s[day] as { start?: unknown; end?: unknown } | undefined;
    const start = d ? minutesOf(d.start) : null;
    const end = d ? minutesOf(d.end) : null;
    if (start === null || end === null || end <= start) {
      out.push({ days: [i], start: "00:00", end: "24:00" });
      return;
    }
    if (start > 0) out.push({ days: [i], start: "00:00", end: hhmm(start) });
    if (end < 1440) out.push({ days: [i], start: hhmm(end), end: "24:00" });
  });
  return out;
}
