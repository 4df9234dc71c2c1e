// GET /api/fleet (Moat's own): this node's view of the fleet — which nodes there are, the version
// of each replicated kind they hold, how far behind they are, whether they are alive, and who
// published the state in force and when (src/fleet/README.md).
import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { documented } from "../docs/meta.ts";
import { moatOnly } from "../core/route-meta.ts";

const KindState = t.Object({
  version: t.Integer({ description: "version of this kind in force on this node" }),
  node: t.String({ description: "the node that published that version" }),
  at: t.Number({ description: "when it was published (seconds since epoch)" }),
  latest: t.Integer({ description: "the fleet's latest version as last seen" }),
  lag: t.Integer({ description: "versions this node is behind" }),
  pending: t.Boolean({ description: "this node has changes not yet published (the store is away)" }),
  error: t.Union([t.String(), t.Null()], { description: "why the last sync failed, or null" }),
});

const NodeState = t.Object({
  node: t.String(),
  seen: t.Number({ description: "last heartbeat (seconds since epoch)" }),
  healthy: t.Boolean({ description: "heard from within the last 10 s" }),
  versions: t.Record(t.String(), t.Integer(), { description: "version held, per kind" }),
  lag: t.Integer({ description: "versions behind the latest, summed over the kinds" }),
  pending: t.Array(t.String(), { description: "kinds with changes it has not yet published" }),
  api: t.String({ description: "its webserver.port" }),
});

const FleetReply = t.Object({
  fleet: t.Object({
    enabled: t.Boolean({ description: "fleet.redis is set" }),
    node: t.Union([t.String(), t.Null()], { description: "this node's name" }),
    connected: t.Boolean({ description: "this node reaches the store now" }),
    error: t.Union([t.String(), t.Null()], { description: "the store's last error" }),
    kinds: t.Record(t.String(), KindState),
    nodes: t.Array(NodeState),
    gravity: t.Object({
      version: t.Integer({ description: "version of the shared gravity package this node holds (0: none)" }),
      leader: t.Union([t.String(), t.Null()], {
        description: "the node holding the gravity lease: it runs the scheduled updates",
      }),
      error: t.Union([t.String(), t.Null()], { description: "why the last gravity exchange failed, or null" }),
    }),
  }),
});

/** The reply of a single node (fleet.redis not set). */
const SINGLE_NODE = {
  fleet: {
    enabled: false,
    node: null,
    connected: false,
    error: null,
    kinds: {},
    nodes: [],
    gravity: { version: 0, leader: null, error: null },
  },
};

export function fleetRoutes(rt: Pick<ApiDeps, "fleet">) {
  return new Elysia({ name: "fleet" }).get(
    "/fleet",
    async () => {
      if (!rt.fleet) return SINGLE_NODE;
      const s = await rt.fleet.status();
      const latest: Record<string, number> = {};
      const kinds: Record<string, typeof KindState.static> = {};
      for (const [name, k] of Object.entries(s.kinds)) {
        latest[name] = k.latest;
        kinds[name] = {
          version: k.version,
          node: k.node,
          at: k.at / 1000,
          latest: k.latest,
          lag: Math.max(0, k.latest - k.version),
          pending: k.pending,
          error: k.error,
        };
      }
      const nodes = s.nodes
        .map((n) => ({
          ...n,
          seen: n.seen / 1000,
          lag: Object.entries(latest).reduce((sum, [name, v]) => sum + Math.max(0, v - (n.versions[name] ?? 0)), 0),
        }))
        .sort((a, b) => a.node.localeCompare(b.node));
      return {
        fleet: {
          enabled: true,
          node: s.node,
          connected: s.connected,
          error: s.error,
          kinds,
          nodes,
          gravity: s.gravity,
        },
      };
    },
    {
      response: FleetReply,
      detail: moatOnly(
        documented(
          { tags: ["Fleet"], summary: "The nodes of the fleet, the versions they hold, their lag and health" },
          {
            examples: [
              {
                summary: "A single node (fleet.redis not set)",
                status: 200,
                response: SINGLE_NODE,
              },
            ],
          },
        ),
      ),
    },
  );
}
