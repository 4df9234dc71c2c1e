// GET/POST /api/dns/blocking. Moat's reply field is a boolean; with webserver.api.piholeCompat
// it is Pi-hole's string enum (docs/pihole-differences.md).
import { Elysia, t } from "elysia";
import type { Context } from "../../core/runtime.ts";

const BlockingReply = t.Object({
  blocking: t.Union(
    [t.Boolean(), t.Union([t.Literal("enabled"), t.Literal("disabled"), t.Literal("failure"), t.Literal("unknown")])],
    {
      description: 'true/false; "enabled"/"disabled"/"failure"/"unknown" with webserver.api.piholeCompat',
    },
  ),
  timer: t.Union([t.Number(), t.Null()], { description: "seconds until the state flips back, or null" }),
});

/** The longest timer: a year (src/core/blocking.ts chains timeouts past setTimeout's 2^31 ms). */
const MAX_BLOCKING_TIMER = 365 * 86400;

const BlockingBody = t.Object({
  blocking: t.Boolean({ error: 'No "blocking" boolean in body data', errorKey: "body_error" }),
  timer: t.Optional(
    t.Union([t.Number({ minimum: 0, maximum: MAX_BLOCKING_TIMER }), t.Null()], {
      description: `seconds after which the state flips back, 0 to ${MAX_BLOCKING_TIMER} (a year); null, 0 or absent: permanent`,
      error: `Invalid "timer": a number of seconds from 0 to ${MAX_BLOCKING_TIMER}, or null`,
      errorKey: "bad_request",
    }),
  ),
});

function state(rt: Context) {
  const b = rt.blocking;
  const compat = rt.config.current.webserver.api.piholeCompat;
  // never "failure": the API answers only while DNS runs (src/services.ts starts it first and stops it last)
  const blocking: boolean | "enabled" | "disabled" = compat ? (b.active ? "enabled" : "disabled") : b.active;
  const remaining = b.timerRemaining;
  return { blocking, timer: remaining === null ? null : Math.round(remaining * 10) / 10 };
}

export function blockingRoutes(rt: Context) {
  return new Elysia({ name: "dns-blocking" })
    .get("/dns/blocking", () => state(rt), {
      response: BlockingReply,
      detail: { tags: ["DNS control"], summary: "Get the blocking state" },
    })
    .post(
      "/dns/blocking",
      ({ body }) => {
        const timer = typeof body.timer === "number" && body.timer > 0 ? body.timer : null;
        rt.blocking.set(body.blocking, timer);
        return state(rt);
      },
      {
        body: BlockingBody,
        response: BlockingReply,
        detail: { tags: ["DNS control"], summary: "Switch blocking on or off, optionally for a number of seconds" },
      },
    );
}
