// POST /api/action/gravity: runs the gravity update and streams its progress as text/plain while
// it runs, as Pi-hole's does. A request during a run follows that run instead of starting one.
import { streamedResponse } from "../../http/adapter.ts";
import { documented } from "../docs/meta.ts";
import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";

export function gravityActionRoutes(rt: Pick<ApiDeps, "gravity">) {
  return new Elysia({ name: "action-gravity" }).post(
    "/action/gravity",
    () => {
      const run = rt.gravity.start("API");
      return streamedResponse(
        new Response(run.stream(), {
          status: 200,
          headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
        }),
      );
    },
    {
      query: t.Object(
        { color: t.Optional(t.String({ description: "accepted for compatibility; output has no colours" })) },
        { additionalProperties: true },
      ),
      detail: documented(
        {
          tags: ["Actions"],
          summary: "Update gravity: download the lists and rebuild the filter, streaming progress as text/plain",
        },
        { responses: { 200: "The progress, line by line, until the run ends" }, replyType: "text/plain" },
      ),
    },
  );
}
