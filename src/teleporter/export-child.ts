// The server's Teleporter export runs in a child process (`moat teleporter export FILE`, cli.ts).
// Copying and compressing gravity.db took the thread that answers DNS for 1.6 s and 210 MiB more of
// the server's memory with 1M list entries (bench/api/long-calls.ts). The child reads the live
// files (a read transaction, like any reader of them), asks the kernel to kill it first if memory
// runs out, and writes the archive beside the data; the reply streams it from there.
import { readdirSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { runTeleporterChild } from "./child.ts";
import { scratchFile } from "./export.ts";

/** how long the archive stays for its download (Bun sends a file from disk, read as the client takes it) */
const KEEP_MS = 600_000;
const TAG = "export";

/** The archive, written by a child, as a file to send (deleted after KEEP_MS, or by a later export after a restart). */
export async function exportInChild(paths: { dataDir: string; configFile: string }): Promise<Blob> {
  const file = scratchFile(paths.dataDir, TAG, "zip");
  removeStale(dirname(file));
  try {
    const r = await runTeleporterChild("export", file, paths);
    if (r.code !== 0) throw new Error(r.lastError);
  } catch (e) {
    await rm(file, { force: true });
    throw e;
  }
  // sent from the file, not from memory: a stream through JavaScript held 1.5x the archive more
  // (bench/api/long-calls.ts)
  setTimeout(() => void rm(file, { force: true }), KEEP_MS).unref();
  return Bun.file(file);
}

function removeStale(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(`${TAG}-`) || !name.endsWith(".zip")) continue;
    const f = join(dir, name);
    try {
      if (Date.now() - statSync(f).mtimeMs > KEEP_MS) void rm(f, { force: true });
    } catch {
      // gone meanwhile
    }
  }
}
