// The group a family route names in its path (`/api/<policy>/groups/<name>`): what the GET of one group and
// the PUT of its picks do with it, the same for services, safe search, schedules and upstreams.
import { Elysia, type Static, type TSchema } from "elysia";
import { Errors } from "../core/errors.ts";
import { moatOnly, piholeParams } from "../core/route-meta.ts";
import { documented } from "../docs/meta.ts";
import { pathParts } from "../lists/common.ts";
import { MAX_LEN, checkLength } from "../lists/input.ts";

/** GET /<base>/<name>: what `of` finds for the group named, or a 404 naming the path when nothing. */
export function oneGroup<T>(request: Request, base: string, of: (name: string) => T[]): T[] {
  const { item } = pathParts(request, base, 0);
  const groups = item === null ? [] : of(item);
  if (groups.length === 0) throw Errors.notFound(new URL(request.url).pathname);
  return groups;
}

/** PUT /<base>/<name>: the group named, which the path must have. */
export function groupToWrite(request: Request, base: string): string {
  const { item } = pathParts(request, base, 0);
  if (item === null) throw Errors.badRequest("Invalid request: Specify the group in the URI");
  checkLength(item, "name", MAX_LEN.name);
  return item;
}

/** The reference of GET /<base>/<name>. */
export const oneGroupDoc = (tags: string[], summary: string) =>
  moatOnly(documented(piholeParams("/{name}", { tags, summary }), { responses: { 404: "No such group" } }));

/** GET /<base> (every group) and GET /<base>/<name> (one, or 404): `{ groups }` as `of` finds them. */
export function groupReads<S extends TSchema>(
  base: string,
  of: (name: string | null) => unknown[],
  response: S,
  doc: { tags: string[]; every: string; one: string },
) {
  return new Elysia({ name: `${base}-reads` })
    .get(`/${base}`, () => ({ groups: of(null) }) as Static<S>, {
      response,
      detail: moatOnly(documented({ tags: doc.tags, summary: doc.every }, {})),
    })
    .get(`/${base}/*`, ({ request }) => ({ groups: oneGroup(request, base, of) }) as Static<S>, {
      response,
      detail: oneGroupDoc(doc.tags, doc.one),
    });
}
