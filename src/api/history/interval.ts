// interval= of /api/history/database(/clients): 10-minute slots summed into wider ones, so a month
// is ~300 points rather than 4,320 (a chart cannot show more, and the reply stays ~20 KB where the
// 10-minute slots of a month with eight clients are ~900 KB). Moat-only; absent: Pi-hole's 10 minutes.
import { t } from "elysia";
import { intParam } from "../stats/params.ts";

const SLOT = 600;

export const IntervalQuery = {
  interval: t.Optional(
    t.String({
      description:
        "seconds per point, rounded up to a multiple of 600 (default 600, Pi-hole's 10 minutes); points start at multiples of it",
      "x-moat-only": true,
    }),
  ),
};

/** the interval asked for, a multiple of 600 s, at least 600 and at most a day */
export function intervalParam(v: string | undefined): number {
  const n = intParam(v, SLOT);
  return Math.min(86400, Math.max(SLOT, Math.ceil(n / SLOT) * SLOT));
}

/** consecutive slots summed into points of `interval` seconds (slots are in time order) */
export function coarsen<T extends { timestamp: number }>(
  slots: T[],
  interval: number,
  add: (into: T, x: T) => void,
): T[] {
  if (interval <= SLOT) return slots;
  const out: T[] = [];
  for (const s of slots) {
    const ts = Math.floor(s.timestamp / interval) * interval;
    const last = out[out.length - 1];
    if (last && last.timestamp === ts) add(last, s);
    else out.push({ ...s, timestamp: ts });
  }
  return out;
}
