// The server's Teleporter restore runs in a child process (`moat teleporter import FILE`, cli.ts),
// as its export does (export-child.ts). Restoring a Moat backup with 1M list entries unpacked a
// 60 MiB gravity.db, checked it and copied its rows on the thread that answers DNS: 9.3 s, most of
// it without an answer, and the server's RSS 246 MiB over (bench/api/long-calls.ts). The child does
// that work and says what it changed; the server then takes in the settings file and announces the
// lists as its own restore did.
import { rm, writeFile } from "node:fs/promises";
import type { ListTable } from "../core/events.ts";
import { runTeleporterChild } from "./child.ts";
import { scratchFile } from "./export.ts";
import { TeleporterError, type ImportResult, type ImportSelection } from "./import.ts";

/** the child's instructions: the selection (JSON), and that it answers in one JSON line */
export const SELECTION_ENV = "MOAT_TELEPORTER_SELECTION";
export const REPLY_ENV = "MOAT_TELEPORTER_REPLY";

/** What the child says on stdout: what it restored, or why it refused (nothing was changed then). */
export type ChildReply =
  | { ok: true; files: string[]; skipped: string[]; tables: ListTable[] }
  | { ok: false; message: string; hint: string };

/** restores one after the other, as they ran in this process: two at once would race for gravity.db */
let previous: Promise<unknown> = Promise.resolve();

/** Restores `archive` in a child, after any restore still running; throws TeleporterError when it was refused. */
export function importInChild(
  paths: { dataDir: string; configFile: string },
  archive: Uint8Array,
  sel: ImportSelection,
): Promise<ImportResult & { tables: ListTable[] }> {
  const run = previous.then(() => restore(paths, archive, sel));
  previous = run.catch(() => undefined);
  return run;
}

async function restore(
  paths: { dataDir: string; configFile: string },
  archive: Uint8Array,
  sel: ImportSelection,
): Promise<ImportResult & { tables: ListTable[] }> {
  const file = scratchFile(paths.dataDir, "restore", "zip");
  try {
    await writeFile(file, archive, { mode: 0o600 });
    const r = await runTeleporterChild("import", file, paths, {
      [SELECTION_ENV]: JSON.stringify(sel),
      [REPLY_ENV]: "json",
    });
    let reply: ChildReply | undefined;
    try {
      reply = JSON.parse(r.out.trim().split("\n").pop() ?? "") as ChildReply;
    } catch {
      // no reply: it stopped before answering
    }
    if (reply?.ok === false) throw new TeleporterError(reply.message, reply.hint);
    if (!reply || r.code !== 0) throw new Error(r.lastError);
    return { files: reply.files, skipped: reply.skipped, tables: reply.tables };
  } finally {
    await rm(file, { force: true });
  }
}
