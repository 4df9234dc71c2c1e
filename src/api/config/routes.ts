// /api/config: read the settings tree (or any subtree), change it with a partial tree, and add or
// remove single items of array settings, as Pi-hole's config endpoints do. Changes go through the ConfigStore,
// whose subscribers (DNS, auth) apply them live.
import { documented } from "../docs/meta.ts";
import { piholeParams } from "../core/route-meta.ts";
import { Elysia, t } from "elysia";
import { getIn, isLeaf, type AnyLeaf } from "../../config/index.ts";
import type { Context } from "../../core/runtime.ts";
import { ApiError, Errors } from "../core/errors.ts";
import { applyChanges, assertMayChangeConfig, changesFromTree, pathSegments } from "./changes.ts";
import { DNS_SERVERS, TOPICS, configTree, isKnownPath, nodeAt } from "./view.ts";

const ConfigQuery = t.Object({
  detailed: t.Optional(
    t.String({ description: "true: every leaf as {description,allowed,type,value,default,modified,flags}" }),
  ),
  restart: t.Optional(t.String({ description: "accepted for compatibility: Moat applies changes without restarting" })),
});

// `config` is checked by hand: Elysia fills a missing object member with {} before validation.
const PatchBody = t.Object(
  { config: t.Optional(t.Unknown({ description: 'partial config tree, e.g. {dns:{upstreams:["9.9.9.9"]}}' })) },
  { additionalProperties: true },
);

const noConfig = () => new ApiError(400, "body_error", 'No "config" object in body data', null);
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

const ConfigReply = t.Object({ config: t.Record(t.String(), t.Unknown()) }, { additionalProperties: true });

const truthy = (s: string | undefined) => s !== undefined && ["true", "yes", "1", "on"].includes(s.toLowerCase());

function reply(rt: Context, segments: string[], detailed: boolean): { config: Record<string, unknown> } {
  const out: { config: Record<string, unknown> } = { config: configTree(rt.config, segments, detailed) };
  if (detailed) Object.assign(out, { topics: TOPICS, dns_servers: DNS_SERVERS });
  return out;
}

function usage(method: "PUT" | "DELETE"): ApiError {
  const hint =
    method === "PUT"
      ? 'Use, e.g., PUT /api/config/dns/upstreams/127.0.0.1 to add "127.0.0.1" to config.dns.upstreams'
      : 'Use, e.g., DELETE /api/config/dns/upstreams/127.0.0.1 to remove "127.0.0.1" from config.dns.upstreams';
  return Errors.badRequest("Invalid path depth", hint);
}

/** `dns/hosts/10.1.2.3 nas.lan` → the array leaf dns.hosts and the item. */
function arrayItem(
  request: Request,
  method: "PUT" | "DELETE",
): { path: string; segments: string[]; leaf: AnyLeaf; item: string } {
  const segs = pathSegments(request);
  if (segs.length < 2) throw usage(method);
  const segments = segs.slice(0, -1);
  const node = nodeAt(segments);
  if (!isLeaf(node) || node.kind !== "strings") throw usage(method);
  const raw = segs[segs.length - 1]!;
  // the item as the setting stores it (a Unicode local name as punycode), so it is found when there
  const item = node.normalize ? ((node.normalize([raw]) as string[])[0] ?? raw) : raw;
  return { path: segments.join("."), segments, leaf: node, item };
}

function patchConfig(rt: Context, request: Request, config: unknown, segments: string[]) {
  assertMayChangeConfig(rt, request);
  if (!isObject(config)) throw noConfig();
  applyChanges(rt, changesFromTree(rt.config, config));
  return reply(rt, isKnownPath(segments) ? segments : [], false);
}

export function configRoutes(rt: Context) {
  return (
    new Elysia({ name: "config" })
      .get("/config", ({ query }) => reply(rt, [], truthy(query.detailed)), {
        query: ConfigQuery,
        response: ConfigReply,
        detail: { tags: ["Config"], summary: "Get the whole configuration (secrets masked)" },
      })
      .get(
        "/config/*",
        ({ query, request }) => {
          const segs = pathSegments(request);
          // Pi-hole answers a path it does not know with an empty tree; Moat's own mode says 404.
          if (!isKnownPath(segs)) {
            if (rt.config.current.webserver.api.piholeCompat) return { config: {} };
            throw Errors.notFound(new URL(request.url).pathname);
          }
          return reply(rt, segs, truthy(query.detailed));
        },
        {
          query: ConfigQuery,
          response: ConfigReply,
          detail: piholeParams("/{element}", {
            tags: ["Config"],
            summary: "Get a subtree of the configuration, e.g. /api/config/dns/upstreams",
          }),
        },
      )
      .patch("/config", ({ body, request }) => patchConfig(rt, request, body.config, []), {
        body: PatchBody,
        query: ConfigQuery,
        response: ConfigReply,
        detail: documented(
          {
            tags: ["Config"],
            summary: "Change settings with a partial tree {config:{…}}; applied live, all or nothing",
          },
          {
            responses: {
              200: "Changed: the reply is the new tree",
              400: "An unknown key or a bad value (nothing changed)",
              403: "This session may not change the configuration (app session without webserver.api.app_sudo, CLI session, or misc.readOnly)",
            },
          },
        ),
      })
      // Pi-hole matches /api/config by prefix: the body is applied whatever the path, and the reply
      // is the subtree the path names (clients set e.g. /api/config/webserver/api/password this way).
      .patch("/config/*", ({ body, request }) => patchConfig(rt, request, body.config, pathSegments(request)), {
        body: PatchBody,
        query: ConfigQuery,
        response: ConfigReply,
        detail: piholeParams("", {
          tags: ["Config"],
          summary: "Same as PATCH /api/config; the reply is the subtree under the path",
        }),
      })
      .put(
        "/config/*",
        ({ request, set }) => {
          assertMayChangeConfig(rt, request);
          const { path, segments, item } = arrayItem(request, "PUT");
          const current = getIn(rt.config.current, segments) as string[];
          if (current.includes(item))
            throw Errors.badRequest("Item already present", "Uniqueness of items is enforced");
          applyChanges(rt, [{ path, value: [...current, item] }]);
          set.status = 201;
          return {};
        },
        {
          query: ConfigQuery,
          detail: documented(
            piholeParams("/{element}/{value}", {
              tags: ["Config"],
              summary: "Add an item to an array setting, e.g. PUT /api/config/dns/hosts/10.1.2.3%20nas.lan",
            }),
            {
              responses: {
                201: "Added",
                400: "Not an array setting, a bad value, or the item is already there",
                403: "This session may not change the configuration (app session without webserver.api.app_sudo, CLI session, or misc.readOnly)",
              },
              examples: [
                {
                  summary: "add a local record",
                  path: "/api/config/dns/hosts/10.1.2.3%20nas.lan",
                  status: 201,
                  response: {},
                },
              ],
            },
          ),
        },
      )
      .delete(
        "/config/*",
        ({ request }) => {
          assertMayChangeConfig(rt, request);
          const { path, segments, item } = arrayItem(request, "DELETE");
          const current = getIn(rt.config.current, segments) as string[];
          if (!current.includes(item)) throw new ApiError(404, "not_found", "Item not found", item);
          applyChanges(rt, [{ path, value: current.filter((x) => x !== item) }]);
          return undefined;
        },
        {
          query: ConfigQuery,
          detail: documented(
            piholeParams("/{element}/{value}", { tags: ["Config"], summary: "Remove an item from an array setting" }),
            {
              responses: {
                204: "Removed",
                400: "Not an array setting",
                403: "This session may not change the configuration (app session without webserver.api.app_sudo, CLI session, or misc.readOnly)",
                404: "The item is not there",
              },
            },
          ),
        },
      )
  );
}
