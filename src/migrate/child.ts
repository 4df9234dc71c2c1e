// The server's migration (`POST /api/action/migrate`) runs `moat migrate` in a child process, as the
// Teleporter's restore does (src/teleporter/import-child.ts): reading a Pi-hole gravity.db of a million
// rows and restoring it would otherwise hold the thread that answers DNS. The child answers in one JSON
// line; the server then takes in the settings file, announces the lists and the leases.
import { rm, writeFile } from "node:fs/promises";
import { runSelf } from "../core/self-command.ts";
import { scratchFile } from "../teleporter/export.ts";
import type { Applied } from "./apply.ts";
import { MIGRATE_REPLY_ENV, type MigrateChildReply } from "./cli.ts";
import { MigrateError } from "./report.ts";

/** as long as the Teleporter's child may take */
const CHILD_TIMEOUT_MS = 300_000;

export interface ChildRequest {
  /** the uploaded file: a Teleporter archive or AdGuardHome.yaml */
  bytes: Uint8Array;
  mode?: "merge" | "replace";
  dryRun: boolean;
}

/** one after the other: two at once would race for gravity.db */
let previous: Promise<unknown> = Promise.resolve();

/** Runs the migration of `req` in a child; throws MigrateError when it was refused (nothing changed then). */
export function migrateInChild(paths: { dataDir: string; configFile: string }, req: ChildRequest): Promise<Applied> {
  const run = previous.then(() => inChild(paths, req));
  previous = run.catch(() => undefined);
  return run;
}

async function inChild(paths: { dataDir: string; configFile: string }, req: ChildRequest): Promise<Applied> {
  const archive = (req.bytes[0] === 0x50 && req.bytes[1] === 0x4b) || (req.bytes[0] === 0x1f && req.bytes[1] === 0x8b);
  const file = scratchFile(paths.dataDir, "migrate", archive ? "archive" : "yaml");
  try {
    await writeFile(file, req.bytes, { mode: 0o600 });
    const flags = [...(req.mode ? [`--${req.mode}`] : []), ...(req.dryRun ? ["--dry-run"] : [])];
    const { out, err, code } = await runSelf(
      [
        "migrate",
        archive ? "pihole" : "adguardhome",
        file,
        ...flags,
        "--data-dir",
        paths.dataDir,
        "--config",
        paths.configFile,
      ],
      { [MIGRATE_REPLY_ENV]: "json" },
      CHILD_TIMEOUT_MS,
    );
    let reply: MigrateChildReply | undefined;
    try {
      reply = JSON.parse(out.trim().split("\n").pop() ?? "") as MigrateChildReply;
    } catch {
      // no reply: it stopped before answering
    }
    if (reply?.ok === false) throw new MigrateError(reply.message, reply.hint);
    if (!reply || code !== 0) throw new Error(err.trim().split("\n").pop() || `the migration stopped (exit ${code})`);
    const { ok: _, ...applied } = reply;
    return applied;
  } finally {
    await rm(file, { force: true });
  }
}
