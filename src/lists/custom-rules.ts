// The custom rules: AdGuard Home's "Custom filtering rules", one text in AdGuard's rule syntax
// (src/filter/rule-syntax.ts), applied to every client by the rules policy (src/policies/rules/).
import type { Database } from "bun:sqlite";
import { type ListsDb, writeLists } from "./store.ts";

/** AdGuard Home keeps its custom rules in its YAML file with no limit; a megabyte is a very long hand-made list */
export const MAX_CUSTOM_RULES = 1 << 20;

export interface CustomRules {
  rules: string;
  /** unix seconds of the last change, 0 when never set */
  updated: number;
}

export function customRules(db: Database): CustomRules {
  const r = db
    .query<{ rules: string; date_modified: number }, []>("SELECT rules, date_modified FROM moat_custom_rules")
    .get();
  return { rules: r?.rules ?? "", updated: r?.date_modified ?? 0 };
}

/** Replaces the text (line endings made \n) and announces it, so the filter rebuilds with it. */
export function setCustomRules(store: ListsDb, rules: string): CustomRules {
  const text = rules.replace(/\r\n?/g, "\n");
  const now = Math.floor(Date.now() / 1000);
  writeLists(store, ["rules"], (db) =>
    db.run(
      "INSERT INTO moat_custom_rules (id, rules, date_modified) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET rules = excluded.rules, date_modified = excluded.date_modified",
      [text, now],
    ),
  );
  return { rules: text, updated: now };
}
