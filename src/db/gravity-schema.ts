// The gravity database in Pi-hole's v6 layout (info.version = 20, pi-hole/pi-hole's advanced/Templates/gravity.db.sql), so that a Pi-hole
// gravity.db opens as-is and ours opens in Pi-hole. Written from the documented schema.

export const GRAVITY_SCHEMA_VERSION = 20;

/**
 * The tables a gravity run fills beside the live ones and renames over them in its swap
 * (src/filter/gravity/build.ts). They reference adlist like the live ones, so a list's removal
 * (src/lists/adlists.ts) deletes its rows from them too, also from those a killed run left behind.
 */
export const GRAVITY_BUILD_TABLES = { gravity: "gravity_build", antigravity: "antigravity_build" } as const;

// The four domainlist views differ only in the type they pick (0 allow, 1 deny, 2 regex allow, 3 regex deny).
const domainlistView = (name: string, type: number): string => `
CREATE VIEW vw_${name} AS SELECT domain, domainlist.id AS id, domainlist_by_group.group_id AS group_id
  FROM domainlist
  LEFT JOIN domainlist_by_group ON domainlist_by_group.domainlist_id = domainlist.id
  LEFT JOIN "group" ON "group".id = domainlist_by_group.group_id
  WHERE domainlist.enabled = 1 AND (domainlist_by_group.group_id IS NULL OR "group".enabled = 1)
  AND domainlist.type = ${type}
  ORDER BY domainlist.id;`;

const gravityView = (table: string, extra: string): string => `
CREATE VIEW vw_${table} AS SELECT domain, adlist.id AS adlist_id, adlist_by_group.group_id AS group_id
  FROM ${table}
  LEFT JOIN adlist_by_group ON adlist_by_group.adlist_id = ${table}.adlist_id
  LEFT JOIN adlist ON adlist.id = ${table}.adlist_id
  LEFT JOIN "group" ON "group".id = adlist_by_group.group_id
  WHERE adlist.enabled = 1 AND (adlist_by_group.group_id IS NULL OR "group".enabled = 1)${extra};`;

export const GRAVITY_SCHEMA = `
CREATE TABLE "group" (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  enabled BOOLEAN NOT NULL DEFAULT 1,
  name TEXT UNIQUE NOT NULL,
  date_added INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)),
  date_modified INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)),
  description TEXT
);
INSERT INTO "group" (id, enabled, name, description) VALUES (0, 1, 'Default', 'The default group');

CREATE TABLE domainlist (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  type INTEGER NOT NULL DEFAULT 0,
  domain TEXT NOT NULL,
  enabled BOOLEAN NOT NULL DEFAULT 1,
  date_added INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)),
  date_modified INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)),
  comment TEXT,
  UNIQUE(domain, type)
);

CREATE TABLE adlist (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  address TEXT NOT NULL,
  enabled BOOLEAN NOT NULL DEFAULT 1,
  date_added INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)),
  date_modified INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)),
  comment TEXT,
  date_updated INTEGER,
  number INTEGER NOT NULL DEFAULT 0,
  invalid_domains INTEGER NOT NULL DEFAULT 0,
  status INTEGER NOT NULL DEFAULT 0,
  abp_entries INTEGER NOT NULL DEFAULT 0,
  type INTEGER NOT NULL DEFAULT 0,
  UNIQUE(address, type)
);

CREATE TABLE adlist_by_group (
  adlist_id INTEGER NOT NULL REFERENCES adlist (id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES "group" (id) ON DELETE CASCADE,
  PRIMARY KEY (adlist_id, group_id)
);

CREATE TABLE gravity (
  domain TEXT NOT NULL,
  adlist_id INTEGER NOT NULL REFERENCES adlist (id)
);

CREATE TABLE antigravity (
  domain TEXT NOT NULL,
  adlist_id INTEGER NOT NULL REFERENCES adlist (id)
);

CREATE TABLE info (
  property TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
INSERT INTO info VALUES ('version', '20');
INSERT INTO info VALUES ('gravity_restored', 'false');

CREATE TABLE domainlist_by_group (
  domainlist_id INTEGER NOT NULL REFERENCES domainlist (id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES "group" (id) ON DELETE CASCADE,
  PRIMARY KEY (domainlist_id, group_id)
);

CREATE TABLE client (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ip TEXT NOT NULL UNIQUE,
  date_added INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)),
  date_modified INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)),
  comment TEXT
);

CREATE TABLE client_by_group (
  client_id INTEGER NOT NULL REFERENCES client (id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES "group" (id) ON DELETE CASCADE,
  PRIMARY KEY (client_id, group_id)
);

CREATE TRIGGER tr_adlist_update AFTER UPDATE OF address, enabled, comment ON adlist
BEGIN
  UPDATE adlist SET date_modified = (cast(strftime('%s', 'now') as int)) WHERE id = NEW.id;
END;

CREATE TRIGGER tr_client_update AFTER UPDATE ON client
BEGIN
  UPDATE client SET date_modified = (cast(strftime('%s', 'now') as int)) WHERE id = NEW.id;
END;

CREATE TRIGGER tr_domainlist_update AFTER UPDATE ON domainlist
BEGIN
  UPDATE domainlist SET date_modified = (cast(strftime('%s', 'now') as int)) WHERE id = NEW.id;
END;

${["allowlist", "denylist", "regex_allowlist", "regex_denylist"].map((name, type) => domainlistView(name, type)).join("\n")}
${gravityView("gravity", "")}
${gravityView("antigravity", " AND adlist.type = 1")}
CREATE VIEW vw_adlist AS SELECT DISTINCT address, id, type
  FROM adlist
  WHERE enabled = 1
  ORDER BY id;

CREATE TRIGGER tr_domainlist_add AFTER INSERT ON domainlist
BEGIN
  INSERT INTO domainlist_by_group (domainlist_id, group_id) VALUES (NEW.id, 0);
END;

CREATE TRIGGER tr_client_add AFTER INSERT ON client
BEGIN
  INSERT INTO client_by_group (client_id, group_id) VALUES (NEW.id, 0);
END;

CREATE TRIGGER tr_adlist_add AFTER INSERT ON adlist
BEGIN
  INSERT INTO adlist_by_group (adlist_id, group_id) VALUES (NEW.id, 0);
END;

CREATE TRIGGER tr_group_update AFTER UPDATE ON "group"
BEGIN
  UPDATE "group" SET date_modified = (cast(strftime('%s', 'now') as int)) WHERE id = NEW.id;
END;

CREATE TRIGGER tr_group_zero AFTER DELETE ON "group"
BEGIN
  INSERT OR IGNORE INTO "group" (id, enabled, name) VALUES (0, 1, 'Default');
END;

CREATE TRIGGER tr_domainlist_delete AFTER DELETE ON domainlist
BEGIN
  DELETE FROM domainlist_by_group WHERE domainlist_id = OLD.id;
END;

CREATE TRIGGER tr_adlist_delete AFTER DELETE ON adlist
BEGIN
  DELETE FROM adlist_by_group WHERE adlist_id = OLD.id;
END;

CREATE TRIGGER tr_client_delete AFTER DELETE ON client
BEGIN
  DELETE FROM client_by_group WHERE client_id = OLD.id;
END;
`;
