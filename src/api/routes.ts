// The route groups, in the order they are mounted under /api. Each group is an Elysia plugin with
// its TypeBox schemas beside its handlers.
import type { AnyElysia } from "elysia";
import type { ApiDeps } from "./deps.ts";
import { authRoutes } from "./auth/routes.ts";
import type { Authenticator } from "./core/auth-hook.ts";
import { blockingRoutes } from "./dns/blocking.ts";
import { configRoutes } from "./config/routes.ts";
import { teleporterRoutes } from "./teleporter/routes.ts";
import { actionRoutes } from "./action/routes.ts";
import { docsPlugin } from "./docs/plugin.ts";
import { infoRoutes } from "./info/routes.ts";
import { endpointsRoutes } from "./info/endpoints.ts";
import { domainRoutes } from "./domains/routes.ts";
import { groupRoutes } from "./groups/routes.ts";
import { clientRoutes } from "./clients/routes.ts";
import { listRoutes } from "./lists/routes.ts";
import { searchRoutes } from "./search/routes.ts";
import { gravityActionRoutes } from "./action/gravity.ts";
import { tlsActionRoutes } from "./action/tls.ts";
import { migrateRoutes } from "./action/migrate.ts";
import { upstreamTestRoutes } from "./action/upstreams.ts";
import { updateRoutes } from "./action/update.ts";
import { tlsRoutes } from "./tls/routes.ts";
import { guideRoutes } from "./guide/routes.ts";
import { statsRoutes } from "./stats/routes.ts";
import { historyRoutes } from "./history/routes.ts";
import { queriesRoutes } from "./queries/routes.ts";
import { machineInfoRoutes } from "./info/machine.ts";
import { ftlInfoRoutes } from "./info/ftl.ts";
import { databaseInfoRoutes } from "./info/database.ts";
import { messageRoutes } from "./info/messages.ts";
import { metricsInfoRoutes } from "./info/metrics.ts";
import { logsRoutes } from "./logs/routes.ts";
import { networkRoutes } from "./network/routes.ts";
import { dhcpRoutes } from "./dhcp/routes.ts";
import { paddRoutes } from "./padd/routes.ts";
import { fleetRoutes } from "./fleet/routes.ts";
import { familyRoutes } from "./family/routes.ts";
import { scheduleRoutes } from "./family/schedules.ts";
import { upstreamRoutes } from "./family/upstreams.ts";
import { rulesRoutes } from "./rules/routes.ts";

// Elysia's generic parameters differ per plugin; the app only needs them as mountable plugins (AnyElysia).

export function routeGroups(rt: ApiDeps, auth: Authenticator): AnyElysia[] {
  return [
    docsPlugin(rt.version),
    authRoutes(rt, auth),
    blockingRoutes(rt),
    infoRoutes(rt),
    endpointsRoutes(rt),
    configRoutes(rt),
    teleporterRoutes(rt),
    actionRoutes(rt),
    statsRoutes(rt),
    historyRoutes(rt),
    queriesRoutes(rt),
    machineInfoRoutes(rt),
    ftlInfoRoutes(rt),
    databaseInfoRoutes(rt),
    messageRoutes(rt),
    metricsInfoRoutes(rt),
    logsRoutes(rt),
    networkRoutes(rt),
    dhcpRoutes(rt),
    paddRoutes(rt),
    domainRoutes(rt),
    groupRoutes(rt),
    clientRoutes(rt),
    listRoutes(rt),
    searchRoutes(rt),
    gravityActionRoutes(rt),
    tlsActionRoutes(rt),
    migrateRoutes(rt),
    upstreamTestRoutes(rt),
    updateRoutes(rt),
    tlsRoutes(rt),
    guideRoutes(rt),
    fleetRoutes(rt),
    familyRoutes(rt),
    scheduleRoutes(rt),
    upstreamRoutes(rt),
    rulesRoutes(rt),
  ];
}
