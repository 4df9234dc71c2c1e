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

/** Changes to pihole-FTL.db after Pi-hole's version 21. */
export const QUERY_MIGRATIONS: readonly Migration[] = [];
