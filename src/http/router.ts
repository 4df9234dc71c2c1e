// Path-prefix dispatch: each part of the server (the API, metrics, the dashboard, later DNS over
// HTTPS) registers the prefix it owns; the longest matching prefix answers.
import type { Arrival, Handler } from "./adapter.ts";

export interface Mount {
  /** "/api" owns "/api" and "/api/…", never "/apix"; "/" owns everything */
  prefix: string;
  handle: Handler;
}

function owns(prefix: string, path: string): boolean {
  if (prefix === "/") return true;
  return path === prefix || path.startsWith(prefix.endsWith("/") ? prefix : `${prefix}/`);
}

export function prefixRouter(mounts: readonly Mount[], fallback: Handler): Handler {
  const ordered = [...mounts].sort((a, b) => b.prefix.length - a.prefix.length);
  return (req: Request, arrival: Arrival) => {
    const path = new URL(req.url).pathname;
    for (const m of ordered) if (owns(m.prefix, path)) return m.handle(req, arrival);
    return fallback(req, arrival);
  };
}
