// The routes of a group policy (`/api/<policy>/groups[/<name>]`): the GET of every group and of one, and the PUT
// of one group's picks, the same for services, safe search, schedules and upstreams; and what their bodies share.
import { Elysia, t, type Static, type TSchema } from "elysia";
import type { TArray, TString } from "@sinclair/typebox";
import { Errors } from "../core/errors.ts";
import { moatOnly, piholeParams } from "../core/route-meta.ts";
import { documented } from "../docs/meta.ts";
import { listsWrite, pathParts } from "../lists/common.ts";
import { MAX_LEN, checkLength } from "../lists/input.ts";

/** The reference's section of every family route. */
export const FAMILY_TAGS = ["Family controls"];

/** GET /<base>/<name>: what `of` finds for the group named, or a 404 naming the path when nothing. */
function oneGroup<T>(request: Request, base: string, of: (name: string) => T[]): T[] {
  const { item } = pathParts(request, base, 0);
  const groups = item === null ? [] : of(item);
  if (groups.length === 0) throw Errors.notFound(new URL(request.url).pathname);
  return groups;
}

/** PUT /<base>/<name>: the group named, which the path must have. */
function groupToWrite(request: Request, base: string): string {
  const { item } = pathParts(request, base, 0);
  if (item === null) throw Errors.badRequest("Invalid request: Specify the group in the URI");
  checkLength(item, "name", MAX_LEN.name);
  return item;
}

/** A PUT body that is one list of picks, `{ <key>: [id…] }`, replacing the group's ([]: none). */
export function picksBody<K extends string>(
  key: K,
  limits: { maxLength: number; maxItems: number; description: string },
) {
  const { maxLength, ...list } = limits;
  return t.Object({ [key]: t.Array(t.String({ maxLength }), list) } as Record<K, TArray<TString>>);
}

/** The body of picks from a catalogue a GET lists (services, safe-search engines): their ids. */
export const catalogueBody = <K extends string>(key: K, catalogue: string, maxItems: number) =>
  picksBody(key, {
    maxLength: 64,
    maxItems,
    description: `ids from GET ${catalogue}; replaces the group's selection ([]: none)`,
  });

/**
 * Throws `refusal` of the picks that name nothing `known` knows, joined. The caller writes the message as a
 * literal (`Errors.badRequest("Unknown service", ids)`) so that the dashboard's catalogues can translate it.
 */
export function refuseUnknown<T>(
  picks: readonly T[],
  known: (pick: T) => unknown,
  refusal: (ids: string) => Error,
): void {
  const unknown = picks.filter((p) => !known(p));
  if (unknown.length) throw refusal(unknown.join(", "));
}

/** What a group policy's routes need: its reply and PUT body, how a PUT is checked and stored, and their reference. */
interface GroupPolicy<S extends TSchema, B extends TSchema> {
  response: S;
  body: B;
  /** Checks the picks (a refusal is a 400 ApiError) and stores them for the group; an unknown group is the lists' 404. */
  save: (group: string, body: Static<B>) => void;
  /** The reply's fields beside `groups` (schedules: the time zone). */
  more?: () => object;
  doc: { every: string; one: string; put: string; refused: string };
}

/**
 * A group policy's routes: GET /<base> (every group), GET /<base>/<name> (one, or 404), and PUT
 * /<base>/<name>, which replaces the group's picks; each answers `{ groups }` as `of` finds them, and `more`'s fields.
 */
export function groupPolicyRoutes<S extends TSchema, B extends TSchema>(
  base: string,
  of: (name: string | null) => unknown[],
  policy: GroupPolicy<S, B>,
) {
  const { response, doc } = policy;
  const tags = FAMILY_TAGS;
  const reply = (groups: unknown[]) => ({ groups, ...policy.more?.() }) as Static<S>;
  return new Elysia({ name: base })
    .get(`/${base}`, () => reply(of(null)), {
      response,
      detail: moatOnly(documented({ tags, summary: doc.every }, {})),
    })
    .get(`/${base}/*`, ({ request }) => reply(oneGroup(request, base, of)), {
      response,
      detail: moatOnly(
        documented(piholeParams("/{name}", { tags, summary: doc.one }), { responses: { 404: "No such group" } }),
      ),
    })
    .put(
      `/${base}/*`,
      ({ request, body }) => {
        const group = groupToWrite(request, base);
        listsWrite(request, () => policy.save(group, body as Static<B>));
        return reply(of(group));
      },
      {
        body: policy.body,
        response,
        detail: moatOnly(
          documented(piholeParams("/{name}", { tags, summary: doc.put }), {
            responses: { 400: doc.refused, 404: "No such group" },
          }),
        ),
      },
    );
}
