// The long-term query database (pihole-FTL.db) in Pi-hole's layout (version 21),
// so tools that read Pi-hole's database read ours.

export const QUERY_DB_VERSION = 21;

export const QUERY_SCHEMA = `
CREATE TABLE ftl (id INTEGER PRIMARY KEY NOT NULL, value BLOB NOT NULL, description TEXT);
CREATE TABLE counters (id INTEGER PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
INSERT INTO counters (id, value) VALUES (0, 0), (1, 0);

CREATE TABLE query_storage (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp INTEGER NOT NULL,
  type INTEGER NOT NULL,
  status INTEGER NOT NULL,
  domain INTEGER NOT NULL,
  client INTEGER NOT NULL,
  forward INTEGER,
  additional_info INTEGER,
  reply_type INTEGER,
  reply_time REAL,
  dnssec INTEGER,
  list_id INTEGER,
  ede INTEGER
);
CREATE INDEX idx_queries_timestamps ON query_storage (timestamp);

CREATE TABLE domain_by_id (id INTEGER PRIMARY KEY, domain TEXT NOT NULL);
CREATE UNIQUE INDEX domain_by_id_domain_idx ON domain_by_id (domain);
CREATE TABLE client_by_id (id INTEGER PRIMARY KEY, ip TEXT NOT NULL, name TEXT);
CREATE UNIQUE INDEX client_by_id_client_idx ON client_by_id (ip, name);
CREATE TABLE forward_by_id (id INTEGER PRIMARY KEY, forward TEXT NOT NULL);
CREATE UNIQUE INDEX forward_by_id_forward_idx ON forward_by_id (forward);
CREATE TABLE addinfo_by_id (id INTEGER PRIMARY KEY, type INTEGER NOT NULL, content NOT NULL);
CREATE UNIQUE INDEX addinfo_by_id_idx ON addinfo_by_id (type, content);

CREATE VIEW queries AS
  SELECT q.id, q.timestamp, q.type, q.status,
    CASE typeof(q.domain) WHEN 'integer' THEN (SELECT domain FROM domain_by_id d WHERE d.id = q.domain) ELSE q.domain END domain,
    CASE typeof(q.client) WHEN 'integer' THEN (SELECT ip FROM client_by_id c WHERE c.id = q.client) ELSE q.client END client,
    CASE typeof(q.forward) WHEN 'integer' THEN (SELECT forward FROM forward_by_id f WHERE f.id = q.forward) ELSE q.forward END forward,
    CASE typeof(q.additional_info) WHEN 'integer' THEN (SELECT content FROM addinfo_by_id a WHERE a.id = q.additional_info) ELSE q.additional_info END additional_info,
    q.reply_type, q.reply_time, q.dnssec, q.list_id, q.ede
  FROM query_storage q;

CREATE TABLE network (
  id INTEGER PRIMARY KEY NOT NULL,
  hwaddr TEXT UNIQUE NOT NULL,
  interface TEXT NOT NULL,
  firstSeen INTEGER NOT NULL,
  lastQuery INTEGER NOT NULL,
  numQueries INTEGER NOT NULL,
  macVendor TEXT,
  aliasclient_id INTEGER
);
CREATE TABLE network_addresses (
  network_id INTEGER NOT NULL,
  ip TEXT UNIQUE NOT NULL,
  lastSeen INTEGER NOT NULL DEFAULT (cast(strftime('%s', 'now') as int)),
  name TEXT,
  nameUpdated INTEGER,
  FOREIGN KEY (network_id) REFERENCES network (id)
);
CREATE TABLE aliasclient (id INTEGER PRIMARY KEY NOT NULL, name TEXT NOT NULL, comment TEXT);

CREATE TABLE message (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  timestamp INTEGER NOT NULL,
  type TEXT NOT NULL,
  message TEXT NOT NULL,
  blob1 BLOB, blob2 BLOB, blob3 BLOB, blob4 BLOB, blob5 BLOB
);

CREATE TABLE session (
  id INTEGER PRIMARY KEY,
  login_at TIMESTAMP NOT NULL,
  valid_until TIMESTAMP NOT NULL,
  remote_addr TEXT NOT NULL,
  user_agent TEXT,
  sid TEXT NOT NULL,
  csrf TEXT NOT NULL,
  tls_login BOOL,
  tls_mixed BOOL,
  app BOOL,
  cli BOOL,
  x_forwarded_for TEXT
);
`;
