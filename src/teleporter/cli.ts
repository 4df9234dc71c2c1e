// `moat teleporter export FILE` / `moat teleporter import FILE`: the same archives as the API,
// for a Moat that is stopped (or a data directory being prepared on another machine). The running
// server's export is this command too, in a child process (export-child.ts).
import { readFileSync, writeFileSync } from "node:fs";
import { versionInfo } from "../core/version.ts";
import type { ConfigStore } from "../config/index.ts";
import { EventBus, type ListTable } from "../core/events.ts";
import { openGravityDb, openQueryDb } from "../db/index.ts";
import { gravitySetsOf } from "../filter/gravity/tables.ts";
import { ENTRY, exportArchive } from "./export.ts";
import { type ChildReply, REPLY_ENV, SELECTION_ENV } from "./import-child.ts";
import { type ImportSelection, TeleporterError, importArchive } from "./import.ts";

export function teleporterCommand(args: string[], config: ConfigStore, dataDir: string): number {
  const [verb, file] = args;
  if ((verb !== "export" && verb !== "import") || !file) {
    console.error("usage: moat teleporter export|import FILE");
    return 2;
  }
  // run by the server for /api/teleporter (export-child.ts, import-child.ts): if memory runs out,
  // this goes, not DNS
  try {
    writeFileSync("/proc/self/oom_score_adj", "1000");
  } catch {
    // not Linux, or no /proc: nothing to ask
  }
  const gravityDb = openGravityDb(dataDir, config.current.database.useWAL);
  try {
    if (verb === "export") {
      const queryDb = openQueryDb(dataDir, config.current.database.useWAL);
      try {
        writeFileSync(file, exportArchive({ config, gravityDb, queryDb, dataDir, version: versionInfo().version }), {
          mode: 0o600,
        });
      } finally {
        queryDb.close();
      }
      console.log(`backup written to ${file}`);
      return 0;
    }
    // the server's restore (import-child.ts) gets one JSON line; a person, sentences
    const json = process.env[REPLY_ENV] === "json";
    const say = (r: ChildReply) => console.log(JSON.stringify(r));
    try {
      // in a stopped Moat nothing listens for the change; the server announces what this collects
      const events = new EventBus();
      const tables = new Set<ListTable>();
      events.on("lists-changed", (p) => {
        for (const t of p.tables) tables.add(t);
      });
      const sel = JSON.parse(process.env[SELECTION_ENV] || "{}") as ImportSelection;
      const r = importArchive({ config, gravityDb, events, dataDir }, new Uint8Array(readFileSync(file)), sel);
      // the filter's sets of the restored rows, written here: the server then loads the file rather
      // than building them from the rows (a million take it ~100 MiB more; bench/api/long-calls.ts)
      if (r.files.some((f) => f.startsWith(`${ENTRY.gravity}->`))) gravitySetsOf(gravityDb, gravityDb.filename);
      if (json) say({ ok: true, files: r.files, skipped: r.skipped, tables: [...tables] });
      else {
        for (const f of r.files) console.log(`imported ${f}`);
        for (const s of r.skipped) console.error(`skipped setting ${s}`);
      }
      return 0;
    } catch (e) {
      if (e instanceof TeleporterError) {
        if (json) say({ ok: false, message: e.message, hint: e.hint });
        else console.error(`moat: ${e.message}: ${e.hint} (nothing was changed)`);
        return 1;
      }
      throw e;
    }
  } finally {
    gravityDb.close();
  }
}
