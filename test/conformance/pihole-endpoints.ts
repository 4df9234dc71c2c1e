// Pi-hole FTL v6.4.1's route table as facts: what its GET /api/endpoints lists, one line per
// operation ("METHOD uri parameters"), 85 in all. The tests compare Moat's listing against it.
const table = `
GET /api/auth/sessions
DELETE /api/auth/session /{id}
GET /api/auth/app
GET /api/auth/totp
GET POST DELETE /api/auth
GET POST /api/dns/blocking
GET /api/clients/_suggestions
GET PUT DELETE /api/clients /{client}
POST /api/clients
POST /api/clients:batchDelete
GET PUT DELETE /api/domains /{type}/{kind}/{domain}
POST /api/domains /{type}/{kind}
POST /api/domains:batchDelete
GET /api/search /{domain}
GET PUT DELETE /api/groups /{name}
POST /api/groups
POST /api/groups:batchDelete
GET PUT DELETE /api/lists /{list}
POST /api/lists
POST /api/lists:batchDelete
GET /api/info/client
GET /api/info/login
GET /api/info/system
GET /api/info/database
GET /api/info/sensors
GET /api/info/host
GET /api/info/ftl
GET /api/info/version
GET /api/info/messages/count
DELETE /api/info/messages /{message_id}
GET /api/info/messages
GET /api/info/metrics
GET /api/logs/dnsmasq
GET /api/logs/ftl
GET /api/logs/webserver
GET /api/history/clients
GET /api/history/database/clients
GET /api/history/database
GET /api/history
GET /api/queries/suggestions
GET /api/queries
GET /api/stats/summary
GET /api/stats/query_types
GET /api/stats/upstreams
GET /api/stats/top_domains
GET /api/stats/top_clients
GET /api/stats/recent_blocked
GET /api/stats/database/top_domains
GET /api/stats/database/top_clients
GET /api/stats/database/summary
GET /api/stats/database/query_types
GET /api/stats/database/upstreams
GET PATCH /api/config
GET /api/config /{element}
PUT DELETE /api/config /{element}/{value}
GET /api/network/gateway
GET /api/network/routes
GET /api/network/interfaces
GET /api/network/devices
DELETE /api/network/devices /{device_id}
GET /api/endpoints
GET POST /api/teleporter
GET /api/dhcp/leases
DELETE /api/dhcp/leases /{ip}
POST /api/action/gravity
POST /api/action/restartdns
POST /api/action/flush/logs
POST /api/action/flush/arp
POST /api/action/flush/network
GET /api/padd
GET /api/docs
`;

export interface Operation {
  method: "get" | "post" | "put" | "patch" | "delete";
  uri: string;
  parameters: string;
}

export const PIHOLE_OPERATIONS: readonly Operation[] = table
  .trim()
  .split("\n")
  .flatMap((line) => {
    const words = line.split(" ");
    const methods = words.filter((w) => /^[A-Z]+$/.test(w));
    const [uri, parameters = ""] = words.slice(methods.length);
    return methods.map((m) => ({ method: m.toLowerCase() as Operation["method"], uri: uri!, parameters }));
  });

/** The GET operations with their path templates filled in as Pi-hole's own checker requests them (literally). */
export const PIHOLE_GET_PATHS: readonly string[] = PIHOLE_OPERATIONS.filter((o) => o.method === "get").map(
  (o) => o.uri + o.parameters,
);
