// Paused clients as a group policy: judged first, before the groups are asked and with blocking off too, as a
// pause is the parent's switch, not a list.
import type { GroupPolicy, PolicyVerdict } from "../../filter/policy.ts";
import { activePauses } from "../../lists/family.ts";
import { Status } from "../../query/enums.ts";
import { PAUSED_LIST_ID } from "../services/rules.ts";
import { PauseTable, type PausedEntry } from "./table.ts";

const PAUSED: PolicyVerdict = {
  status: Status.DENYLIST,
  reason: "client paused",
  listId: PAUSED_LIST_ID,
  cnameTo: null,
};

export const pausePolicy: GroupPolicy<{ entries: PausedEntry[] }, PauseTable> = {
  name: "pause",
  point: "client",
  always: true,
  compile: (b) => ({
    entries: activePauses(b.db, Math.floor(Date.now() / 1000)).map((p) => ({
      ip: p.client,
      until: p.until === null ? 0 : p.until * 1000,
    })),
  }),
  empty: () => ({ entries: [] }),
  buffers: () => [],
  load: (d, opts) => (d.entries.length ? new PauseTable(d.entries, opts) : null),
  judge: (t, q) => (t.paused(q.client, q.clientId) ? PAUSED : null),
  forget: (t, ip) => t.forget(ip),
};
