// What a migration says it did: one shape for the command's output and the API's reply
// (`POST /api/action/migrate`), so a dry run and a real run read the same.
import { t } from "elysia";

export const MigrationReport = t.Object({
  source: t.String({ description: 'what was read, e.g. "Pi-hole v5 directory /etc/pihole"' }),
  applied: t.Boolean({ description: "false for a dry run: the target was not touched" }),
  mode: t.Union([t.Literal("new"), t.Literal("merge"), t.Literal("replace")], {
    description: "new: the target had no data; merge: added to it; replace: the target's settings and lists replaced",
  }),
  backup: t.Optional(t.String({ description: "the Teleporter archive of the target written before it was changed" })),
  carried: t.Array(t.String(), { description: 'one line per kind of thing carried, e.g. "12 deny entries"' }),
  notCarried: t.Array(t.Object({ item: t.String(), why: t.String() }), {
    description: "each thing that was not carried, and why",
  }),
});
export type MigrationReport = typeof MigrationReport.static;

/** Why the source or the target was refused; nothing was changed. */
export class MigrateError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/** The report as lines for a person: what was carried, then one line per thing that was not. */
export function reportLines(r: MigrationReport): string[] {
  const head = `${r.applied ? "migrated" : "would migrate (dry run)"} from ${r.source}${r.mode === "new" ? "" : ` (${r.mode})`}`;
  return [
    head,
    ...(r.backup ? [`backup of the target before the change: ${r.backup}`] : []),
    ...r.carried.map((c) => `  carried: ${c}`),
    ...r.notCarried.map((n) => `  not carried: ${n.item}: ${n.why}`),
  ];
}
