// The server's migration (`POST /api/action/migrate`) runs `moat migrate` in a child process, as the
// Teleporter's restore does (src/teleporter/import-child.ts): reading a Pi-hole gravity.db of a million
// rows and restoring it would otherwise hold the thread that answers DNS. The child answers in one JSON
// line; the server then takes in the settings file, announces the lists and the leases.
import { open, rm, stat, writeFile } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { runSelf } from "../core/self-command.ts";
import { scratchFile } from "../teleporter/export.ts";
import type { Applied } from "./apply.ts";
import { MIGRATE_REPLY_ENV, type MigrateChildReply } from "./cli.ts";
import { MigrateError } from "./report.ts";

/** as long as the Teleporter's child may take */
const CHILD_TIMEOUT_MS = 300_000;

export interface ChildRequest {
  /** the uploaded file: a Teleporter archive or AdGuardHome.yaml */
  bytes?: Uint8Array;
  /** or one on this machine: a Pi-hole directory, a Teleporter archive or AdGuardHome.yaml */
  path?: string;
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

const isArchive = (b: Uint8Array) => (b[0] === 0x50 && b[1] === 0x4b) || (b[0] === 0x1f && b[1] === 0x8b);

/** What `path` on this machine is: a Pi-hole directory or archive, or (any other file) an AdGuardHome.yaml. */
async function localSource(path: string): Promise<"pihole" | "adguardhome"> {
  const why =
    "give the absolute path of a Pi-hole directory (/etc/pihole), a Teleporter archive or an AdGuardHome.yaml";
  if (!isAbsolute(path)) throw new MigrateError(`Not an absolute path: ${path.slice(0, 200)}`, why);
  const st = await stat(path).catch(() => null);
  if (!st) throw new MigrateError(`Nothing at ${path.slice(0, 200)} (or Moat may not read it)`, why);
  if (st.isDirectory()) return "pihole";
  if (!st.isFile()) throw new MigrateError(`Not a file or directory: ${path.slice(0, 200)}`, why);
  const head = new Uint8Array(2);
  const fh = await open(path, "r");
  try {
    await fh.read(head, 0, 2, 0);
  } finally {
    await fh.close();
  }
  return isArchive(head) ? "pihole" : "adguardhome";
}

async function inChild(paths: { dataDir: string; configFile: string }, req: ChildRequest): Promise<Applied> {
  const bytes = req.bytes;
  const kind = bytes ? (isArchive(bytes) ? "pihole" : "adguardhome") : await localSource(req.path ?? "");
  const file = bytes ? scratchFile(paths.dataDir, "migrate", kind === "pihole" ? "archive" : "yaml") : req.path!;
  try {
    if (bytes) await writeFile(file, bytes, { mode: 0o600 });
    const flags = [...(req.mode ? [`--${req.mode}`] : []), ...(req.dryRun ? ["--dry-run"] : [])];
    const { out, err, code } = await runSelf(
      ["migrate", kind, file, ...flags, "--data-dir", paths.dataDir, "--config", paths.configFile],
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
    if (bytes) await rm(file, { force: true });
  }
}
