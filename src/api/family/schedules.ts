// /api/schedules (Moat's own): each group's weekly windows, in the system's time zone, and what they block:
// the chosen services and block lists, or everything but the allow list. A change is in force at once, and each window
// opens and closes at its minute by itself (src/policies/schedule/).
import { t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { serviceById } from "../../policies/services/rules.ts";
import { windowProblem, type ScheduleWindow } from "../../policies/schedule/windows.ts";
import { Errors } from "../core/errors.ts";
import { groupPolicyRoutes, refuseUnknown } from "./group-path.ts";

const Window = t.Object({
  days: t.Array(t.Integer({ minimum: 0, maximum: 6 }), {
    minItems: 1,
    maxItems: 7,
    description: "the days the window starts on: 0 = Sunday … 6 = Saturday",
  }),
  start: t.String({ pattern: "^\\d\\d:\\d\\d$", description: "HH:MM, the system's local time" }),
  end: t.String({
    pattern: "^\\d\\d:\\d\\d$",
    description: "HH:MM (24:00: midnight); at or before start, the window ends on the next day",
  }),
});
const Schedule = t.Object({
  windows: t.Array(Window, { maxItems: 100 }),
  services: t.Array(t.String({ maxLength: 64 }), {
    maxItems: 1000,
    description: "ids from GET /api/services, blocked while a window is open",
  }),
  lists: t.Optional(
    t.Array(t.Integer(), {
      maxItems: 1000,
      description: "ids of block lists (GET /api/lists) that apply to the group only while a window is open",
    }),
  ),
  everything: t.Boolean({ description: "while a window is open, block everything but the allow list" }),
});
const GroupSchedule = t.Object({
  name: t.String(),
  schedule: t.Union([Schedule, t.Null()], { description: "null: the group has no schedule" }),
});
const Reply = t.Object({ groups: t.Array(GroupSchedule), timezone: t.String() });

const timezone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;

function groupsOf(rt: ApiDeps, name: string | null) {
  const schedules = rt.lists.groupSchedules();
  return rt.lists.groupRows(name).map((g) => ({
    name: g.name,
    schedule: (schedules.get(g.name) ?? null) as {
      windows: ScheduleWindow[];
      services: string[];
      lists: number[];
      everything: boolean;
    } | null,
  }));
}

export function scheduleRoutes(rt: ApiDeps) {
  return groupPolicyRoutes("schedules/groups", (name) => groupsOf(rt, name), {
    response: Reply,
    body: Schedule,
    more: () => ({ timezone: timezone() }),
    save: (group, body) => {
      for (const w of body.windows) {
        const p = windowProblem(w);
        if (p) throw Errors.badRequest(`Invalid window: ${p}`, w);
      }
      refuseUnknown(body.services, serviceById, (ids) => Errors.badRequest("Unknown service", ids));
      const known = rt.lists.adlistIds();
      const lists = [...new Set(body.lists ?? [])];
      refuseUnknown(
        lists,
        (id) => known.has(id),
        (ids) => Errors.badRequest("Unknown list", ids),
      );
      const empty = body.windows.length === 0;
      const s = empty
        ? null
        : { windows: body.windows, services: [...new Set(body.services)], lists, everything: body.everything };
      rt.lists.setGroupSchedule(group, s);
    },
    doc: {
      every: "Every group's weekly schedule, and the time zone it runs in",
      one: "One group's weekly schedule",
      put: "Set a group's weekly schedule (no windows: remove it)",
      refused: "A window that is not one, an unknown service or list",
    },
  });
}
