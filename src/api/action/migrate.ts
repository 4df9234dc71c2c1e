// POST /api/action/migrate (Moat's own): a Pi-hole Teleporter archive (v6 .zip, v5 .tar.gz) or an
// AdGuardHome.yaml (uploaded, or a path on this machine, a Pi-hole directory too) carried into this Moat,
// as `moat migrate` does (src/migrate/), in a child process;
// dryRun=true returns the report without changing anything. Gated as the Teleporter's restore is.
import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { migrateInChild } from "../../migrate/child.ts";
import { MigrateError, MigrationReport } from "../../migrate/report.ts";
import { MAX_SOURCE } from "../../migrate/source.ts";
import { assertMayChangeConfig } from "../config/changes.ts";
import { takeInChildChanges } from "../core/child-changes.ts";
import { moatOnly } from "../core/route-meta.ts";
import { Errors } from "../core/errors.ts";
import { documented } from "../docs/meta.ts";

const Form = t.Object(
  {
    file: t.Optional(
      t.Unknown({ description: `the Teleporter archive or AdGuardHome.yaml (at most ${MAX_SOURCE} bytes)` }),
    ),
    path: t.Optional(
      t.String({
        maxLength: 4096,
        description:
          "instead of a file: the absolute path on this machine of a Pi-hole directory (/etc/pihole), a Teleporter archive or an AdGuardHome.yaml",
      }),
    ),
    mode: t.Optional(
      t.Union([t.Literal("merge"), t.Literal("replace")], {
        description: "when this Moat already has data: add to it, or replace its settings and lists (backed up first)",
      }),
    ),
    dryRun: t.Optional(
      t.Union([t.Literal("true"), t.Literal("false")], { description: "true: the report only, nothing changed" }),
    ),
  },
  { additionalProperties: true },
);

export function migrateRoutes(rt: Pick<ApiDeps, "config" | "paths" | "log" | "events" | "lists">) {
  return new Elysia({ name: "action-migrate" }).post(
    "/action/migrate",
    async ({ body, request }) => {
      assertMayChangeConfig(rt, request);
      const file = (body as { file?: unknown } | undefined)?.file;
      const path = body.path?.trim() || undefined;
      if (!(file instanceof Blob) && !path)
        throw Errors.badRequest("No file received", 'send multipart/form-data with a "file" field, or a "path" field');
      if (file instanceof Blob && path) throw Errors.badRequest("Both a file and a path given", "send one of them");
      if (file instanceof Blob && file.size > MAX_SOURCE)
        throw Errors.badRequest("File too large", `at most ${MAX_SOURCE} bytes`);
      const dryRun = body.dryRun === "true";
      try {
        const r = await migrateInChild(rt.paths, {
          ...(file instanceof Blob ? { bytes: new Uint8Array(await file.arrayBuffer()) } : { path }),
          mode: body.mode,
          dryRun,
        });
        if (!r.report.applied) return r.report;
        takeInChildChanges(rt, "migrate", "migrated", {
          settings: r.settingsChanged,
          tables: r.tables,
          leases: r.leasesChanged,
        });
        rt.log("info", `migrate: carried ${r.report.source}: ${r.report.carried.join(", ")}`);
        for (const n of r.report.notCarried) rt.log("warn", `migrate: not carried: ${n.item}: ${n.why}`);
        return r.report;
      } catch (e) {
        if (e instanceof MigrateError) throw Errors.badRequest(e.message, e.hint);
        throw e;
      }
    },
    {
      body: Form,
      response: MigrationReport,
      detail: moatOnly(
        documented(
          {
            tags: ["Actions"],
            summary:
              "Carry a Pi-hole Teleporter archive or an AdGuardHome.yaml into this Moat (dryRun: the report only)",
          },
          {
            responses: {
              200: "What was carried and, one entry each, what was not and why",
              400: "Not a usable file, or this Moat has data and no mode was given (nothing changed)",
              403: "This session may not change the configuration (app session without webserver.api.app_sudo, CLI session, or misc.readOnly)",
            },
            bodyType: "multipart/form-data",
          },
        ),
      ),
    },
  );
}
