// Schedules per group: weekly windows ("school nights 21:00–07:00") during which the group's scheduled
// services, or everything but the allow list, are blocked. Each group's windows are compiled once per
// snapshot into a bitmap of the 10080 minutes of a week; the DNS thread works out the minute of the week
// once a minute (in the system's time zone, from the wall clock, so a window keeps its local hours across
// DST changes) and the groups whose window holds it, so a window opens and closes at its minute on every
// DNS thread without a rebuild, and a query costs one comparison when the minute has not changed.

export const WEEK_MINUTES = 7 * 24 * 60;
const WORDS = Math.ceil(WEEK_MINUTES / 32);

export interface ScheduleWindow {
  /** 0 = Sunday … 6 = Saturday: the days the window starts on */
  days: number[];
  /** "HH:MM", local time */
  start: string;
  /** "HH:MM" ("24:00" for midnight); at or before start: the window ends on the next day */
  end: string;
}

const HHMM = /^([01]\d|2[0-4]):([0-5]\d)$/;

/** Minutes since midnight of "HH:MM", or null when it is not a time (24:00 is the only hour-24 time). */
function minuteOfDay(s: string): number | null {
  const m = HHMM.exec(s);
  if (!m) return null;
  const v = Number(m[1]) * 60 + Number(m[2]);
  return v > 1440 ? null : v;
}

/** What is wrong with a window, or null. */
export function windowProblem(w: ScheduleWindow): string | null {
  if (w.days.length === 0) return "a window needs at least one day";
  if (w.days.some((d) => !Number.isInteger(d) || d < 0 || d > 6)) return "days are 0 (Sunday) to 6 (Saturday)";
  const s = minuteOfDay(w.start),
    e = minuteOfDay(w.end);
  if (s === null || s === 1440) return `start "${w.start}" is not a time from 00:00 to 23:59`;
  if (e === null) return `end "${w.end}" is not a time from 00:00 to 24:00`;
  return null;
}

/** The week's minutes the windows cover, one bit each (minute 0 = Sunday 00:00). */
export function compileWindows(windows: readonly ScheduleWindow[]): Uint32Array {
  const bits = new Uint32Array(WORDS);
  for (const w of windows) {
    if (windowProblem(w)) continue;
    const s = minuteOfDay(w.start)!;
    let e = minuteOfDay(w.end)!;
    // an end at or before the start crosses midnight into the next day (and past Saturday into Sunday)
    if (e <= s) e += 1440;
    for (const d of new Set(w.days))
      for (let m = d * 1440 + s; m < d * 1440 + e; m++) {
        const i = m % WEEK_MINUTES;
        bits[i >>> 5]! |= 1 << (i & 31);
      }
  }
  return bits;
}

/** The local minute of the week of a time (ms since the epoch), in the process's time zone. */
export function minuteOfWeek(ms: number): number {
  const d = new Date(ms);
  return d.getDay() * 1440 + d.getHours() * 60 + d.getMinutes();
}

export interface GroupSchedule {
  /** the group's bit in the snapshot's masks */
  bit: number;
  /**
   * The bit its scheduled block lists carry in their group masks (past the groups' bits), -1 when it
   * schedules none: while the window is open the client's groups are widened by it, so those lists apply.
   */
  listBit: number;
  minutes: Uint32Array;
  /** block everything but the allow list while a window is open */
  everything: boolean;
}

/** The groups whose window is open now, re-worked out once a minute. */
export class ScheduleClock {
  /** groups with an open window, and those of them that block everything */
  private open: Uint32Array;
  private openAll: Uint32Array;
  private readonly scratch: Uint32Array;
  private readonly widened: Uint32Array;
  /** whether a schedule blocks lists (widen() has something to do) */
  readonly schedulesLists: boolean;
  /** the minute [validFrom, validUntil) the open groups were worked out for */
  private validFrom = 0;
  private validUntil = 0;

  constructor(
    private readonly schedules: readonly GroupSchedule[],
    private readonly words: number,
  ) {
    this.open = new Uint32Array(words);
    this.openAll = new Uint32Array(words);
    this.scratch = new Uint32Array(words);
    this.widened = new Uint32Array(words);
    this.schedulesLists = schedules.some((s) => s.listBit >= 0);
  }

  /**
   * The client's groups and the list bits of those with a window open (`open`, from openGroups), so the
   * lists they schedule apply. Reused by the next call, like openGroups' array.
   */
  widen(groups: Uint32Array, open: Uint32Array): Uint32Array {
    const w = this.widened;
    for (let i = 0; i < this.words; i++) w[i] = groups[i] ?? 0;
    for (const s of this.schedules)
      if (s.listBit >= 0 && (open[s.bit >>> 5]! & (1 << (s.bit & 31))) !== 0)
        w[s.listBit >>> 5]! |= 1 << (s.listBit & 31);
    return w;
  }

  /**
   * The client's groups that have a window open at `now` (ms), or null when none has. The array is
   * reused by the next call: read it before asking again.
   */
  openGroups(groups: Uint32Array, now: number): Uint32Array | null {
    // outside the minute worked out (the clock also steps back: NTP, a user setting it)
    if (now >= this.validUntil || now < this.validFrom) this.tick(now);
    let any = 0;
    for (let i = 0; i < this.words; i++) any |= this.scratch[i] = (groups[i] ?? 0) & this.open[i]!;
    return any === 0 ? null : this.scratch;
  }

  /** Whether one of `open` (from openGroups) blocks everything. */
  blocksEverything(open: Uint32Array): boolean {
    for (let i = 0; i < this.words; i++) if ((open[i]! & this.openAll[i]!) !== 0) return true;
    return false;
  }

  private tick(now: number): void {
    const m = minuteOfWeek(now);
    const open = new Uint32Array(this.words),
      all = new Uint32Array(this.words);
    for (const s of this.schedules) {
      if ((s.minutes[m >>> 5]! & (1 << (m & 31))) === 0) continue;
      open[s.bit >>> 5]! |= 1 << (s.bit & 31);
      if (s.everything) all[s.bit >>> 5]! |= 1 << (s.bit & 31);
    }
    this.open = open;
    this.openAll = all;
    // the next wall-clock minute (a DST change moves the hours, never the minute's edge)
    this.validFrom = now - (now % 60000);
    this.validUntil = this.validFrom + 60000;
  }
}
