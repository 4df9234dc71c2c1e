// What a route is in Pi-hole's terms, kept in the route's own `detail` so the route table stays the
// one source of GET /api/endpoints, the docs and the conformance test.
import type { DocumentDecoration } from "elysia";

const PARAMETERS = "x-pihole-parameters";
const MOAT_ONLY = "x-moat-only";

/**
 * A route that serves one of Pi-hole's table entries whose path parameters Elysia cannot spell
 * (a wildcard, or the bare collection answering like the one-item form): `parameters` is the
 * template Pi-hole lists for it, e.g. "/{client}" for GET /api/clients and GET /api/clients/*.
 */
export function piholeParams(parameters: string, detail: DocumentDecoration): DocumentDecoration {
  return { ...detail, [PARAMETERS]: parameters } as DocumentDecoration;
}

/** A route Pi-hole does not have: listed by /api/endpoints only outside compatibility mode. */
export function moatOnly(detail: DocumentDecoration): DocumentDecoration {
  return { ...detail, [MOAT_ONLY]: true } as DocumentDecoration;
}

export function paramsTemplateOf(detail: unknown): string | undefined {
  const v = (detail as Record<string, unknown> | undefined)?.[PARAMETERS];
  return typeof v === "string" ? v : undefined;
}

export function isMoatOnlyRoute(detail: unknown): boolean {
  return (detail as Record<string, unknown> | undefined)?.[MOAT_ONLY] === true;
}
