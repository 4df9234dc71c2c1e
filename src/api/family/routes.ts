// Family controls (Moat's own): the blocked-services catalogue, each group's blocked services, the safe-search
// engines and each group's picks, and paused clients. Beside Pi-hole's /api/groups/* and /api/clients/* rather than under them: those are wildcards
// (a client entry may be a subnet with a "/"), so a suffix there would change what Pi-hole's paths mean.
import { Elysia, t } from "elysia";
import { SERVICES } from "../../policies/services/catalogue.ts";
import { serviceById } from "../../policies/services/rules.ts";
import { SAFE_SEARCH_ENGINES, safeSearchEngine } from "../../policies/safesearch/engines.ts";
import { Errors } from "../core/errors.ts";
import type { ApiDeps } from "../deps.ts";
import { moatOnly, piholeParams } from "../core/route-meta.ts";
import { documented } from "../docs/meta.ts";
import { FAMILY_TAGS, catalogueBody, groupPolicyRoutes, refuseUnknown } from "./group-path.ts";
import { pathParts } from "../lists/common.ts";
import { MAX_LEN, checkLength, validateClients } from "../lists/input.ts";

const tags = FAMILY_TAGS;

const Service = t.Object({
  id: t.String({ description: "the key a group's selection names" }),
  name: t.String(),
  category: t.String({ description: "video, social, games, chat, shopping, streaming, ai or other" }),
  list_id: t.Integer({ description: "the list_id the query log shows for a query this service blocked (−code)" }),
  rules: t.Array(t.String(), { description: "||domain^: the domain and every name below it" }),
});
const GroupServices = t.Object({ name: t.String(), services: t.Array(t.String()) });
const GroupsReply = t.Object({ groups: t.Array(GroupServices) });
const Pause = t.Object({
  client: t.String(),
  until: t.Union([t.Integer(), t.Null()], { description: "unix seconds; null: until resumed" }),
});
const PausesReply = t.Object({ pauses: t.Array(Pause) });
const PauseReply = t.Object({
  pauses: t.Array(Pause),
  warning: t.Optional(
    t.String({ description: "present when the client names nothing Moat has seen (a typo pauses no one)" }),
  ),
});

const nowSec = () => Math.floor(Date.now() / 1000);

function groupsOf(rt: ApiDeps, name: string | null) {
  const all = [...rt.lists.groupServices()].map(([n, services]) => ({ name: n, services }));
  return name === null ? all : all.filter((g) => g.name === name);
}

const Engine = t.Object({
  id: t.String({ description: "the key a group's selection names" }),
  name: t.String(),
  target: t.String({ description: "the CNAME target the engine documents" }),
  hosts: t.Array(t.String(), { description: "the host names answered with the CNAME" }),
  doc: t.String({ description: "where the engine documents it" }),
});
const GroupEngines = t.Object({ name: t.String(), engines: t.Array(t.String()) });
const SafeGroupsReply = t.Object({ groups: t.Array(GroupEngines) });

function safeGroupsOf(rt: ApiDeps, name: string | null) {
  const all = [...rt.lists.groupSafeSearch()].map(([n, engines]) => ({ name: n, engines }));
  return name === null ? all : all.filter((g) => g.name === name);
}

/**
 * Why a pause may do nothing: an address, MAC address or host name that no client entry names, that
 * did not ask in the last 24 h and that the network table does not know. Taken all the same (a device
 * may be paused before it joins), with a warning to show. Subnets and interfaces are not looked up.
 */
function unknownClientWarning(rt: ApiDeps, client: string): string | undefined {
  if (client.includes("/") || client.startsWith(":")) return undefined;
  const lower = client.toLowerCase();
  if (rt.stats.window.clients.has(client) || rt.lists.configuredClients().has(lower)) return undefined;
  if (rt.network.knownDevice(client)) return undefined;
  return `No device has been seen as ${client} (no query in the last 24 hours, not in the network table, no client entry): the pause applies once one asks. Check the address if that is not what you meant.`;
}

export function familyRoutes(rt: ApiDeps) {
  return new Elysia({ name: "family" })
    .get(
      "/services",
      () => ({
        services: SERVICES.map((s) => ({
          id: s.id,
          name: s.name,
          category: s.category,
          list_id: -s.code,
          rules: [...s.rules],
        })),
      }),
      {
        response: t.Object({ services: t.Array(Service) }),
        detail: moatOnly(documented({ tags, summary: "The catalogue of services a group can block" }, {})),
      },
    )
    .use(
      groupPolicyRoutes("services/groups", (name) => groupsOf(rt, name), {
        response: GroupsReply,
        body: catalogueBody("services", "/api/services", 1000),
        save: (group, body) => {
          refuseUnknown(body.services, serviceById, (ids) => Errors.badRequest("Unknown service", ids));
          rt.lists.setGroupServices(group, [...new Set(body.services)]);
        },
        doc: {
          every: "Every group's blocked services",
          one: "One group's blocked services",
          put: "Set which services a group blocks",
          refused: "An unknown service id",
        },
      }),
    )
    .get(
      "/safesearch",
      () => ({
        engines: SAFE_SEARCH_ENGINES.map((e) => ({
          id: e.id,
          name: e.name,
          target: e.target,
          hosts: [...e.hosts],
          doc: e.doc,
        })),
      }),
      {
        response: t.Object({ engines: t.Array(Engine) }),
        detail: moatOnly(
          documented({ tags, summary: "The search engines whose safe mode a group can enforce through DNS" }, {}),
        ),
      },
    )
    .use(
      groupPolicyRoutes("safesearch/groups", (name) => safeGroupsOf(rt, name), {
        response: SafeGroupsReply,
        body: catalogueBody("engines", "/api/safesearch", 100),
        save: (group, body) => {
          refuseUnknown(body.engines, safeSearchEngine, (ids) => Errors.badRequest("Unknown safe-search engine", ids));
          if (body.engines.includes("youtube") && body.engines.includes("youtube-moderate"))
            throw Errors.badRequest("YouTube is either strict or moderate", "youtube, youtube-moderate");
          rt.lists.setGroupSafeSearch(group, [...new Set(body.engines)]);
        },
        doc: {
          every: "Every group's safe-search engines",
          one: "One group's safe-search engines",
          put: "Set which engines' safe mode a group enforces",
          refused: "An unknown engine, or YouTube both strict and moderate",
        },
      }),
    )
    .get("/pauses", () => ({ pauses: rt.lists.activePauses(nowSec()) }), {
      response: PausesReply,
      detail: moatOnly(documented({ tags, summary: "The paused clients" }, {})),
    })
    .post(
      "/pauses/*",
      ({ request, body }) => {
        const { item } = pathParts(request, "pauses", 0);
        if (item === null) throw Errors.badRequest("Invalid request: Specify the client in the URI");
        checkLength(item, "client", MAX_LEN.client);
        validateClients([item]);
        const minutes = body.minutes ?? null;
        const until = minutes === null ? null : nowSec() + Math.round(minutes * 60);
        rt.lists.pauseClient(item, until, nowSec());
        const warning = unknownClientWarning(rt, item);
        return { pauses: rt.lists.activePauses(nowSec()), ...(warning ? { warning } : {}) };
      },
      {
        body: t.Object({
          minutes: t.Optional(
            t.Union([t.Number({ exclusiveMinimum: 0, maximum: 525600 }), t.Null()], {
              description: "how long; null or absent: until resumed",
            }),
          ),
        }),
        response: PauseReply,
        detail: moatOnly(
          documented(
            piholeParams("/{client}", {
              tags,
              summary:
                "Pause a client (an address, subnet, MAC, host name or DoT/DoH client ID, matched as client entries are): every query it sends is blocked until the time passes",
            }),
            {},
          ),
        ),
      },
    )
    .delete(
      "/pauses/*",
      ({ request }) => {
        const { item } = pathParts(request, "pauses", 0);
        if (item === null || !rt.lists.resumeClient(item)) throw Errors.notFound(new URL(request.url).pathname);
        return undefined;
      },
      {
        detail: moatOnly(
          documented(
            piholeParams("/{client}", { tags, summary: "Resume a paused client (204; 404 when it was not paused)" }),
            { responses: { 404: "The client was not paused" } },
          ),
        ),
      },
    );
}
