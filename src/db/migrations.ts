// Versioned schema changes. Append a step with the next `to`; never edit a step that has shipped.
import type { Migration } from "./open.ts";

/** Moat's additions to gravity.db (info.moat_schema), beside Pi-hole's tables. */
export const GRAVITY_MIGRATIONS: readonly Migration[] = [
  {
    // family controls: the blocked services each group picks (ids of src/policies/services/catalogue.ts),
    // the safe-search engines it enforces (ids of src/policies/safesearch/engines.ts), its weekly schedule (windows
    // as JSON, see src/policies/schedule/windows.ts, with the services and block lists, or everything, blocked during
    // them), its own
    // upstreams (a JSON array of dns.upstreams entries) and the paused clients (a client entry's text: address, subnet, MAC, host name or client ID;
    // until: unix seconds, NULL until resumed). Pi-hole ignores tables it does not know.
    to: 2,
    up: `
CREATE TABLE moat_group_service (
  group_id INTEGER NOT NULL REFERENCES "group" (id) ON DELETE CASCADE,
  service TEXT NOT NULL,
  PRIMARY KEY (group_id, service)
);
CREATE TABLE moat_group_safesearch (
  group_id INTEGER NOT NULL REFERENCES "group" (id) ON DELETE CASCADE,
  engine TEXT NOT NULL,
  PRIMARY KEY (group_id, engine)
);
CREATE TABLE moat_group_schedule (
  group_id INTEGER PRIMARY KEY REFERENCES "group" (id) ON DELETE CASCADE,
  windows TEXT NOT NULL,
  services TEXT NOT NULL,
  lists TEXT NOT NULL DEFAULT '[]',
  everything INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE moat_group_upstream (
  group_id INTEGER PRIMARY KEY REFERENCES "group" (id) ON DELETE CASCADE,
  upstreams TEXT NOT NULL
);
CREATE TABLE moat_client_pause (
  client TEXT PRIMARY KEY,
  until INTEGER
);`,
  },
  {
    // AdGuard Home's rule syntax (src/filter/rule-syntax.ts): the custom rules as one text, as AdGuard's
    // "Custom filtering rules" editor keeps them (src/lists/custom-rules.ts), and the rules a gravity run found in
    // each list beside its plain names (src/filter/gravity/tables.ts): why is NULL for a rule Moat applies, else
    // why it does not.
    to: 3,
    up: `
CREATE TABLE moat_custom_rules (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  rules TEXT NOT NULL,
  date_modified INTEGER NOT NULL
);
CREATE TABLE moat_list_rule (
  adlist_id INTEGER NOT NULL,
  rule TEXT NOT NULL,
  why TEXT
);
CREATE INDEX moat_list_rule_adlist ON moat_list_rule (adlist_id);`,
  },
];

/**
 * Moat's additions to pihole-FTL.db (ftl row MOAT_QUERY_SCHEMA_ID, src/db/index.ts), beside Pi-hole's tables of
 * its version 21, which stays as it is.
 */
export const QUERY_MIGRATIONS: readonly Migration[] = [
  {
    // Each query's answer records as the query log shows them (src/dns/answer-text.ts), keyed by the query's id.
    // A table of its own, not a column of query_storage: Pi-hole FTL copies rows between its in-memory
    // database and this file with `INSERT INTO disk.query_storage SELECT * FROM query_storage` (and back
    // at start), which a table with one column more would fail (src/database/query-table.c in pi-hole/FTL).
    // Pi-hole ignores tables it does not know; the trigger takes an answer away with its query whoever
    // deletes it (Moat's pruning and flush, or Pi-hole's own).
    to: 2,
    up: `
CREATE TABLE moat_query_answers (
  id INTEGER PRIMARY KEY,
  answers TEXT NOT NULL
);
CREATE TRIGGER moat_query_answers_gone AFTER DELETE ON query_storage
BEGIN
  DELETE FROM moat_query_answers WHERE id = OLD.id;
END;`,
  },
  {
    // Each distinct answer text once (moat_answer_text), and per answered query only its id (moat_query_answer):
    // the text per row doubled the writer's CPU and grew the file by a text a query, and the per-row trigger
    // doubled the work of every prune. Still tables beside Pi-hole's, for the reason above; no trigger: the
    // writer's prune drops the ids of pruned queries by a range of the primary key and the texts no query names
    // (src/querylog/store.ts). One pass over the old table each (an index lookup per row), in the migration's
    // transaction: 2.7 s of CPU for 1M answered queries with 50k texts here.
    to: 3,
    up: `
DROP TRIGGER IF EXISTS moat_query_answers_gone;
CREATE TABLE moat_answer_text (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL UNIQUE
);
CREATE TABLE moat_query_answer (
  id INTEGER PRIMARY KEY,
  answer INTEGER NOT NULL
);
INSERT OR IGNORE INTO moat_answer_text (text) SELECT answers FROM moat_query_answers ORDER BY id;
INSERT INTO moat_query_answer (id, answer)
  SELECT q.id, t.id FROM moat_query_answers q JOIN moat_answer_text t ON t.text = q.answers ORDER BY q.id;
DROP TABLE moat_query_answers;`,
  },
];
