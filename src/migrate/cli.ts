// `moat migrate pihole [DIR|ARCHIVE]` and `moat migrate adguardhome FILE`: reads the source, prints the
// report, and (unless --dry-run) carries it into the data directory. The server's
// `POST /api/action/migrate` runs this command as its child and reads the one JSON line it then prints.
import type { ConfigStore } from "../config/index.ts";
import { migrate, type Applied } from "./apply.ts";
import { MigrateError, reportLines } from "./report.ts";
import { withSource, type SourceKind } from "./source.ts";

/** the child's instruction to answer in one JSON line */
export const MIGRATE_REPLY_ENV = "MOAT_MIGRATE_REPLY";

export type MigrateChildReply = ({ ok: true } & Applied) | { ok: false; message: string; hint: string };

export interface MigrateFlags {
  merge: boolean;
  replace: boolean;
  dryRun: boolean;
  withHistory: boolean;
}

export function migrateCommand(args: string[], flags: MigrateFlags, config: ConfigStore, dataDir: string): number {
  const [what, path] = args;
  const json = process.env[MIGRATE_REPLY_ENV] === "json";
  const fail = (message: string, hint: string) => {
    if (json) console.log(JSON.stringify({ ok: false, message, hint }));
    else console.error(`moat: ${message}: ${hint}`);
    return 1;
  };
  if ((what !== "pihole" && what !== "adguardhome") || (what === "adguardhome" && !path))
    return fail("usage", "moat migrate pihole [DIR|ARCHIVE] | moat migrate adguardhome FILE");
  if (flags.merge && flags.replace) return fail("--merge and --replace exclude each other", "give one of them");
  const kind: SourceKind = what;
  try {
    // a Pi-hole's history is part of it; AdGuard Home's query log only when asked. Not in the server's
    // child: the running server's writer numbers the stored queries, and rows added beside it would collide
    const history = !json && (kind === "pihole" || flags.withHistory);
    const r = withSource(kind, path ?? "/etc/pihole", { history: flags.withHistory, beside: !json }, (plan) =>
      migrate(
        plan,
        { dataDir, config },
        {
          mode: flags.merge ? "merge" : flags.replace ? "replace" : undefined,
          dryRun: flags.dryRun,
          history,
          historyNote: json
            ? "carried by the command line (moat migrate) with Moat stopped, not by the API"
            : "not asked for (--with-history)",
        },
      ),
    );
    if (json) console.log(JSON.stringify({ ok: true, ...r }));
    else {
      for (const l of reportLines(r.report)) console.log(l);
      if (r.report.applied && r.tables.length) console.log("a running Moat takes in the lists when restarted");
    }
    return 0;
  } catch (e) {
    if (e instanceof MigrateError) return fail(e.message, `${e.hint} (nothing was changed)`);
    throw e;
  }
}
