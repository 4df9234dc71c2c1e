// GET /api/endpoints, derived from the mounted route table (reference §2.12).
import { Elysia, t } from "elysia";

export interface RouteEntry {
  method: string;
  path: string;
}

let table: () => readonly RouteEntry[] = () => [];

/** Called once the app is assembled, so the listing is the real table. */
export function setRouteTable(get: () => readonly RouteEntry[]): void {
  table = get;
}

const Endpoint = t.Object({ uri: t.String(), parameters: t.String() });

/** `/api/groups/:name` → { uri: "/api/groups", parameters: "/{name}" } */
export function describe(path: string): { uri: string; parameters: string } {
  const i = path.search(/\/:/);
  if (i < 0) return { uri: path, parameters: "" };
  return { uri: path.slice(0, i), parameters: path.slice(i).replace(/:([A-Za-z_]+)\??/g, "{$1}") };
}

export function endpointsRoutes() {
  return new Elysia({ name: "endpoints" }).get(
    "/endpoints",
    () => {
      const out = { get: [], post: [], put: [], patch: [], delete: [] } as Record<"get" | "post" | "put" | "patch" | "delete", Array<{ uri: string; parameters: string }>>;
      const seen = new Set<string>();
      for (const r of table()) {
        const m = r.method.toLowerCase();
        if (!(m in out) || r.path.startsWith("/api/docs")) continue;
        const d = describe(r.path);
        const key = `${m} ${d.uri}${d.parameters}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out[m as keyof typeof out].push(d);
      }
      for (const list of Object.values(out)) list.sort((a, b) => a.uri.localeCompare(b.uri));
      return { endpoints: out };
    },
    {
      response: t.Object({
        endpoints: t.Object({ get: t.Array(Endpoint), post: t.Array(Endpoint), put: t.Array(Endpoint), patch: t.Array(Endpoint), delete: t.Array(Endpoint) }),
      }),
      detail: { tags: ["Info"], summary: "Every endpoint of this build" },
    },
  );
}
