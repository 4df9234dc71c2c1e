// /api/teleporter: download a backup zip, or restore one, in Pi-hole's format. Uploads arrive as
// multipart form data (the JSON body parser steps aside for them, see app.ts).
import { documented } from "../docs/meta.ts";
import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { ENTRY, archiveName } from "../../teleporter/export.ts";
import { exportInChild } from "../../teleporter/export-child.ts";
import { MAX_ARCHIVE, TeleporterError, type ImportSelection } from "../../teleporter/import.ts";
import { importInChild } from "../../teleporter/import-child.ts";
import { ApiError, Errors } from "../core/errors.ts";
import { assertMayChangeConfig } from "../config/changes.ts";
import { takeInChildChanges } from "../core/child-changes.ts";

const ImportForm = t.Object(
  {
    file: t.Optional(t.Unknown({ description: "the .zip archive (at most 50 MiB)" })),
    import: t.Optional(
      t.Unknown({ description: 'JSON selection, e.g. {"config":true,"gravity":{"domainlist":true,"group":false}}' }),
    ),
  },
  { additionalProperties: true },
);

const ImportReply = t.Object({
  files: t.Array(t.String(), { description: 'parts restored, e.g. "etc/pihole/gravity.db->domainlist"' }),
  skipped: t.Optional(t.Array(t.String(), { description: "settings of the backup Moat could not use" })),
});

function selection(raw: unknown): ImportSelection {
  if (raw === undefined || raw === null || raw === "") return {};
  let v = raw;
  if (typeof raw === "string") {
    try {
      v = JSON.parse(raw);
    } catch {
      throw Errors.badRequest("Invalid request", '"import" is not valid JSON');
    }
  }
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw Errors.badRequest("Invalid request", '"import" must be a JSON object');
  return v as ImportSelection;
}

export function teleporterRoutes(rt: Pick<ApiDeps, "config" | "paths" | "log" | "events" | "lists">) {
  return new Elysia({ name: "teleporter" })
    .get(
      "/teleporter",
      async () => {
        const now = new Date();
        let archive: Blob;
        try {
          archive = await exportInChild(rt.paths);
        } catch (e) {
          rt.log("error", `teleporter export failed: ${(e as Error).message}`);
          throw new ApiError(500, "compression_error", "Failed to create the ZIP archive", (e as Error).message);
        }
        return new Response(archive, {
          headers: {
            "content-type": "application/zip",
            "content-disposition": `attachment; filename="${archiveName(now)}"`,
          },
        });
      },
      {
        detail: documented(
          {
            tags: ["Teleporter"],
            summary:
              "Download a backup: gravity.db, pihole.toml, pihole-FTL.db, hosts and dhcp.leases in Pi-hole's zip layout",
          },
          { responses: { 200: "The archive (application/zip)" }, replyType: "application/zip" },
        ),
      },
    )
    .post(
      "/teleporter",
      async ({ body, request }) => {
        assertMayChangeConfig(rt, request);
        if (!body || typeof body !== "object")
          throw Errors.badRequest("Invalid form request", 'send multipart/form-data with a "file" field');
        const file = (body as { file?: unknown }).file;
        if (!(file instanceof Blob)) throw Errors.badRequest("No ZIP archive received", 'field "file" is missing');
        if (file.size > MAX_ARCHIVE) throw Errors.badRequest("ZIP archive too large", `at most ${MAX_ARCHIVE} bytes`);
        const sel = selection((body as { import?: unknown }).import);
        const bytes = new Uint8Array(await file.arrayBuffer());
        try {
          const r = await importInChild(rt.paths, bytes, sel);
          // what the child changed, taken in here as the restore in this process did
          takeInChildChanges(rt, "teleporter", "restored", {
            settings: r.files.includes(ENTRY.config),
            tables: r.tables,
            leases: r.files.includes(ENTRY.leases),
          });
          rt.log("info", `teleporter: imported ${r.files.join(", ")}`);
          for (const s of r.skipped) rt.log("warn", `teleporter: skipped setting ${s}`);
          return r.skipped.length ? { files: r.files, skipped: r.skipped } : { files: r.files };
        } catch (e) {
          if (e instanceof TeleporterError) throw Errors.badRequest(e.message, e.hint);
          throw e;
        }
      },
      {
        body: ImportForm,
        response: ImportReply,
        detail: documented(
          {
            tags: ["Teleporter"],
            summary: "Restore a backup (multipart: file, optional import selection); all or nothing",
          },
          {
            responses: {
              200: "Restored: the files and settings taken",
              400: "Not a usable archive (nothing changed)",
              403: "This session may not change the configuration (app session without webserver.api.app_sudo, CLI session, or misc.readOnly)",
            },
            bodyType: "multipart/form-data",
          },
        ),
      },
    );
}
