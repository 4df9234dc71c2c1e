// What the API reads and steers: the shared runtime (src/core/runtime.ts) and the running services it
// shows, handed over by src/services.ts. The API starts after every one of them and stops before them,
// so each is there for as long as the API answers; only the fleet's two are absent when not configured.
import type { Auth } from "../auth/auth.ts";
import type { Context } from "../core/runtime.ts";
import type { DhcpHandle } from "../dhcp/service.ts";
import type { DnsHandle } from "../dns/server.ts";
import type { FilterHandle } from "../filter/service.ts";
import type { GravityService } from "../filter/gravity/runner.ts";
import type { ListsStore } from "../lists/owner.ts";
import type { Messages } from "../messages/messages.ts";
import type { NetworkStore } from "../network/store.ts";
import type { Fleet } from "../fleet/fleet.ts";
import type { FleetHistory } from "../fleet/pg-history.ts";
import type { Stats } from "../stats/sink.ts";
import type { TlsStore } from "../tls/store.ts";

export interface ApiDeps extends Context {
  dns: DnsHandle;
  /** the filter snapshot: its sizes, and restartdns's rebuild */
  filter: FilterHandle;
  /** the DHCP leases and counters (the lease database is read even while DHCP is off) */
  dhcp: DhcpHandle;
  /** the statistics and the query log */
  stats: Stats;
  /** the certificate of HTTPS and DNS over TLS */
  tls: TlsStore;
  /** POST /api/action/gravity starts a run, or follows the one the schedule started */
  gravity: Pick<GravityService, "start" | "info" | "listRules">;
  /** the owners of the tables the API reads: never a database handle (scripts/check-architecture.ts) */
  lists: ListsStore;
  network: NetworkStore;
  messages: Messages;
  /** who may log in, and the sessions */
  auth: Auth;
  /** this node's link to the fleet; null unless fleet.redis is set */
  fleet: Pick<Fleet, "status"> | null;
  /** the fleet's shared query history in PostgreSQL; null unless fleet.postgres is set */
  fleetHistory: FleetHistory | null;
}
