// POST /api/action/update, POST /api/action/reboot and GET /api/info/update (Moat's own; docs/updates.md).
// The bundle comes as a multipart upload (field "file", streamed to the data directory) or as JSON
// {"url": "https://…"}; it is checked before the reply starts, so a refused bundle is a 400 whose hint says
// why, and then the install's progress streams as text/plain like the gravity action's. Who may update is
// who may change the config.
// The reboot that starts the installed version is asked of src/update (reboot.ts), which leaves the request
// for the image's root-owned moat-reboot.path unit; it is also gated by webserver.api.allow_destructive.
import { Elysia, t } from "elysia";
import type { Context } from "../../core/runtime.ts";
import { streamedResponse } from "../../http/adapter.ts";
import {
  beginUpdate,
  progressLine,
  reboot,
  UpdateRefused,
  updateContext,
  updateStatus,
  uploadPath,
  type StartedUpdate,
  type UpdateContext,
} from "../../update/index.ts";
import { assertMayChangeConfig } from "../config/changes.ts";
import { moatOnly } from "../core/route-meta.ts";
import { saveFormFile } from "../core/multipart-file.ts";
import { Errors } from "../core/errors.ts";
import { documented } from "../docs/meta.ts";
import { allowDestructive } from "./routes.ts";

const FORBIDDEN =
  "This session may not change the system (app session without webserver.api.app_sudo, CLI session, or misc.readOnly)";

const Slot = t.Object({
  slot: t.String({ description: "RAUC's slot name, e.g. rootfs.1" }),
  bootname: t.String({ description: "A or B" }),
  version: t.Union([t.String(), t.Null()], { description: "the version an update installed there; null: none yet" }),
  bootStatus: t.String({ description: "RAUC's boot status: good or bad" }),
  primary: t.Boolean({ description: "the next boot takes (or tries) this slot" }),
});

const StatusReply = t.Object({
  available: t.Boolean({ description: "false on a machine without RAUC (not the Moat image)" }),
  message: t.Union([t.String(), t.Null()], { description: "why updates are off, else null" }),
  running: t.Object({
    version: t.String({ description: "the running Moat's version" }),
    slot: t.Union([t.String(), t.Null()], { description: "the booted slot (A or B), null when unknown" }),
  }),
  other: t.Union([Slot, t.Null()], { description: "the slot not running, null when there is none" }),
  last: t.Union(
    [
      t.Object({
        at: t.String({ description: "ISO 8601" }),
        ok: t.Boolean(),
        version: t.String({ description: "the bundle's version, empty when refused before it was known" }),
        message: t.String(),
        installing: t.Optional(
          t.Boolean({ description: "true while the install runs (then message says which version it writes)" }),
        ),
      }),
      t.Null(),
    ],
    { description: "the last update attempt, null when there was none" },
  ),
});

const RebootReply = t.Object({
  status: t.Literal("rebooting"),
  slot: t.Union([t.String(), t.Null()], {
    description: "the slot the next boot takes (A or B): the pending trial, else the running one; null when unknown",
  }),
  tryboot: t.Boolean({
    description:
      "the next boot is the trial of a new version (U-Boot's boot counters start it first; kept only when healthy)",
  }),
});

export function updateRoutes(rt: Pick<Context, "config" | "paths" | "log" | "version">) {
  const ctx = (): UpdateContext => updateContext(rt.config.current, rt.paths.dataDir);
  const refused = (e: unknown) => {
    if (e instanceof UpdateRefused) return Errors.badRequest("Update refused", e.message);
    return e;
  };

  return new Elysia({ name: "action-update" })
    .post(
      "/action/update",
      async ({ body, request }) => {
        assertMayChangeConfig(rt, request);
        const c = ctx();
        const b = (body ?? {}) as { multipart?: boolean; url?: unknown };
        let update: StartedUpdate;
        try {
          update = await beginUpdate(c, async () => {
            if (b.multipart) {
              const dest = uploadPath(c.dataDir);
              const size = await saveFormFile(
                request.body,
                request.headers.get("content-type") ?? "",
                "file",
                dest,
                c.settings.maxDownloadBytes,
                request.headers.get("content-length"),
              );
              if (size === null) throw Errors.badRequest("No bundle received", 'field "file" is missing');
              return { path: dest, owned: true };
            }
            if (typeof b.url === "string") return { url: b.url };
            throw Errors.badRequest(
              "No bundle given",
              'send multipart/form-data with a "file" field, or {"url": "<an https: URL>"}',
            );
          });
        } catch (e) {
          throw refused(e);
        }
        rt.log("info", `update: installing version ${update.bundle.version}`);
        const enc = new TextEncoder();
        const stream = new ReadableStream<Uint8Array>({
          async start(out) {
            // the install goes on when the client leaves (RAUC is writing the slot): lines then go nowhere
            let gone = false;
            const line = (s: string) => {
              if (gone) return;
              try {
                out.enqueue(enc.encode(`${s}\n`));
              } catch {
                gone = true;
              }
            };
            try {
              const done = await update.install((p) => line(progressLine(p)));
              rt.log("info", `update: ${done}`);
              line(done);
            } catch (e) {
              const why = e instanceof UpdateRefused ? e.message : `the update failed: ${(e as Error).message}`;
              rt.log("warn", `update: ${why}`);
              line(why);
            } finally {
              if (!gone) out.close();
            }
          },
        });
        return streamedResponse(
          new Response(stream, {
            status: 200,
            headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" },
          }),
        );
      },
      {
        body: t.Optional(
          t.Object(
            {
              url: t.Optional(t.String({ maxLength: 2048, description: "the address of the bundle (https only)" })),
              file: t.Optional(t.Unknown({ description: "multipart: the bundle (.raucb)" })),
            },
            { additionalProperties: true },
          ),
        ),
        detail: moatOnly(
          documented(
            {
              tags: ["Actions"],
              summary:
                "Install a signed update bundle into the other slot (multipart file, or JSON url over https), streaming progress as text/plain",
            },
            {
              responses: {
                200: "The bundle was accepted: the install's progress, line by line, and a last line saying how it ended",
                400: "Refused before anything was written: not signed by this system's key, truncated or corrupt, built for another system, not https, or updates unavailable (the hint says which)",
                403: FORBIDDEN,
                413: "Larger than update.maxDownload",
              },
              bodyType: "multipart/form-data",
            },
          ),
        ),
      },
    )
    .post(
      "/action/reboot",
      async ({ request, set }) => {
        assertMayChangeConfig(rt, request);
        allowDestructive(rt, "Rebooting is not allowed");
        let plan: Awaited<ReturnType<typeof reboot>>;
        try {
          plan = await reboot(ctx(), rt.version.version);
        } catch (e) {
          throw e instanceof UpdateRefused ? Errors.badRequest("Reboot refused", e.message) : e;
        }
        rt.log(
          "info",
          `reboot: requested, the next boot takes slot ${plan.slot ?? "(unknown)"}${plan.tryboot ? " as a trial" : ""}`,
        );
        set.status = 202;
        return { status: "rebooting" as const, ...plan };
      },
      {
        response: { 202: RebootReply },
        detail: moatOnly(
          documented(
            {
              tags: ["Actions"],
              summary:
                "Reboot the machine, into the installed update's trial when one is pending (U-Boot's boot counters), else into the running slot",
            },
            {
              responses: {
                202: "The reboot is asked for: the machine restarts within seconds, and the API is away for about a minute",
                400: "Not on the Moat image (no RAUC), or an update is being installed (the hint says which)",
                403: `${FORBIDDEN}; or webserver.api.allow_destructive is false`,
              },
            },
          ),
        ),
      },
    )
    .get("/info/update", async () => updateStatus(ctx().settings, rt.paths.dataDir, rt.version.version), {
      response: StatusReply,
      detail: moatOnly(
        documented(
          {
            tags: ["Info"],
            summary: "Firmware updates: the running version, the other slot's version and the last update's result",
          },
          { responses: { 200: "The update status (available: false on a machine without RAUC)" } },
        ),
      ),
    });
}
