// The OpenAPI document behind /api/docs, made from the mounted routes themselves: their TypeBox
// schemas (the ones requests and replies are validated with), their `detail`, and what the app's
// hooks add to every route (authentication, the error envelope, `took`). Nothing is written twice,
// so the reference cannot drift from what the server answers (test/api/docs.test.ts replays it).
import { PUBLIC_ROUTES } from "../core/auth-hook.ts";
import { ErrorReply } from "../core/errors.ts";
import { describe as pathTemplate } from "../info/endpoints.ts";
import { docsOf, type DocExample } from "./meta.ts";

export interface DocRoute {
  method: string;
  path: string;
  hooks?: { body?: unknown; query?: unknown; params?: unknown; response?: unknown; detail?: unknown };
}

type Json = Record<string, unknown>;

const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  204: "No content",
  400: "Bad request: the error envelope says what is wrong",
  401: "No valid session (log in with POST /api/auth)",
  403: "Forbidden for this session",
  404: "Not found",
  410: "Gone",
  413: "Request body too large",
  429: "Too many requests",
};

const ErrorSchema = plainSchema(ErrorReply) as Json;

/**
 * TypeBox schema → plain JSON Schema. Elysia's numeric and boolean types also accept their string
 * spelling (for query strings); a reply or a JSON body carries the real type, so the document names
 * only that one.
 */
function plainSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plainSchema);
  if (!schema || typeof schema !== "object") return schema;
  const s = schema as Json;
  if (Array.isArray(s.anyOf)) {
    const real = (s.anyOf as Json[]).filter(
      (alt) =>
        !(
          alt.type === "string" &&
          typeof alt.format === "string" &&
          /^(integer|numeric|boolean|ArrayString|ObjectString)$/.test(alt.format)
        ),
    );
    if (real.length === 1 && real.length < (s.anyOf as unknown[]).length) {
      const { anyOf: _drop, default: _default, ...rest } = s;
      return plainSchema({ ...rest, ...real[0] });
    }
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === "elysiaMeta" || k === "nullable") continue;
    out[k] =
      k === "properties" || k === "patternProperties"
        ? Object.fromEntries(Object.entries(v as Json).map(([p, ps]) => [p, plainSchema(ps)]))
        : plainSchema(v);
  }
  return out;
}

const isSchema = (v: unknown): v is Json =>
  !!v &&
  typeof v === "object" &&
  ("type" in v || "anyOf" in v || "properties" in v || "$ref" in v || Object.keys(v).length === 0);

/** The reply schemas of a route by status: a single schema is the success reply. */
function replySchemas(response: unknown): Map<number, Json | undefined> {
  const out = new Map<number, Json | undefined>();
  if (!response) return out;
  if (isSchema(response) && !Object.keys(response).every((k) => /^\d+$/.test(k))) out.set(0, response);
  else for (const [code, s] of Object.entries(response as Json)) out.set(Number(code), s as Json);
  return out;
}

function parametersOf(route: DocRoute, docPath: string): Json[] {
  const params: Json[] = [];
  for (const m of docPath.matchAll(/\{([^}]+)\}/g)) {
    const own = (route.hooks?.params as { properties?: Json } | undefined)?.properties?.[m[1]!];
    params.push({
      name: m[1],
      in: "path",
      required: true,
      schema: own ? plainSchema(own) : { type: "string" },
      description: "URL-encoded",
    });
  }
  const q = route.hooks?.query as { properties?: Json; required?: string[] } | undefined;
  for (const [name, s] of Object.entries(q?.properties ?? {})) {
    const plain = plainSchema(s) as Json;
    const { description, ...schema } = plain;
    params.push({
      name,
      in: "query",
      required: q?.required?.includes(name) ?? false,
      schema,
      ...(description ? { description } : {}),
    });
  }
  return params;
}

function responsesOf(route: DocRoute, needsAuth: boolean, hasItem: boolean, examples: readonly DocExample[]): Json {
  const docs = docsOf(route.hooks?.detail);
  const schemas = replySchemas(route.hooks?.response ?? docs.reply);
  const statuses = new Map<number, string>();
  for (const [code, text] of Object.entries(docs.responses ?? {})) statuses.set(Number(code), text);
  const declaredSuccess = [...statuses.keys()].find((c) => c >= 200 && c < 300);
  const success = declaredSuccess ?? (route.method === "DELETE" && !schemas.size ? 204 : 200);
  const schemaFor = (code: number) => schemas.get(code) ?? (code === success ? schemas.get(0) : undefined);
  if (!statuses.has(success)) statuses.set(success, STATUS_TEXT[success]!);
  for (const code of schemas.keys()) if (code && !statuses.has(code)) statuses.set(code, STATUS_TEXT[code] ?? "");
  const hasInput = !!(route.hooks?.body || (route.hooks?.query as { properties?: Json } | undefined)?.properties);
  if (hasInput && !statuses.has(400) && !docs.noValidationError) statuses.set(400, STATUS_TEXT[400]!);
  // an item in the path may not exist, and a DELETE may name it in a form that cannot exist
  if (!docs.responses && hasItem && route.method !== "POST") statuses.set(404, "No such item");
  if (!docs.responses && hasItem && route.method === "DELETE") statuses.set(400, "The item is malformed");
  if (needsAuth && !statuses.has(401)) statuses.set(401, STATUS_TEXT[401]!);

  const out: Json = {};
  for (const code of [...statuses.keys()].sort((a, b) => a - b)) {
    const entry: Json = { description: statuses.get(code) || STATUS_TEXT[code] || String(code) };
    const own = schemaFor(code);
    const schema = own ? (plainSchema(own) as Json) : code >= 400 ? ErrorSchema : undefined;
    if (schema && code !== 204 && !(code === 410 && !own)) {
      const content: Json = { schema };
      const ex = examples.filter((e) => e.status === code && e.response !== undefined);
      if (ex.length)
        content.examples = Object.fromEntries(
          ex.map((e) => [e.summary, { summary: e.summary, value: { ...(e.response as Json), took: 0.003 } }]),
        );
      entry.content = { [docs.replyType ?? "application/json"]: content };
    }
    out[String(code)] = entry;
  }
  return out;
}

function requestBodyOf(route: DocRoute, examples: readonly DocExample[]): Json | undefined {
  const body = route.hooks?.body;
  if (!body) return undefined;
  const docs = docsOf(route.hooks?.detail);
  const content: Json = { schema: plainSchema(body) };
  const ex = examples.filter((e) => e.body !== undefined);
  if (ex.length)
    content.examples = Object.fromEntries(ex.map((e) => [e.summary, { summary: e.summary, value: e.body }]));
  return { required: !docs.bodyOptional, content: { [docs.bodyType ?? "application/json"]: content } };
}

export interface DocOptions {
  title: string;
  version: string;
  description: string;
}

/** Whether a route needs a session: everything but Pi-hole's public routes. */
const needsSession = (path: string) => !(PUBLIC_ROUTES.has(path) || path.startsWith("/api/docs"));

export function openApiDocument(routes: readonly DocRoute[], o: DocOptions): Json {
  const paths: Record<string, Json> = {};
  const tags = new Set<string>();
  for (const r of routes) {
    const detail = (r.hooks?.detail ?? {}) as Json;
    if (!METHODS.has(r.method) || detail.hide === true || r.path.startsWith("/api/docs/")) continue;
    const t = pathTemplate(r.path, detail);
    const docPath = t.uri + t.parameters;
    const method = r.method.toLowerCase();
    if (paths[docPath]?.[method]) continue;
    const needsAuth = needsSession(r.path);
    const docs = docsOf(detail);
    const examples = docs.examples ?? [];
    const op: Json = {
      operationId: `${method}${docPath.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
      tags: detail.tags,
      summary: detail.summary,
      ...(detail.description ? { description: detail.description } : {}),
      ...(needsAuth ? {} : { security: [] }),
      parameters: parametersOf(r, docPath),
    };
    const body = requestBodyOf(r, examples);
    if (body) op.requestBody = body;
    op.responses = responsesOf(r, needsAuth, docPath.includes("{"), examples);
    if (examples.length) op["x-moat-examples"] = examples;
    for (const tag of (detail.tags as string[] | undefined) ?? []) tags.add(tag);
    (paths[docPath] ??= {})[method] = op;
  }
  return {
    openapi: "3.1.0",
    info: { title: o.title, version: o.version, description: o.description },
    servers: [{ url: "/" }],
    tags: [...tags].map((name) => ({ name })),
    components: {
      schemas: { Error: ErrorSchema },
      securitySchemes: {
        sid_header: {
          type: "apiKey",
          in: "header",
          name: "X-FTL-SID",
          description: "the session ID from POST /api/auth (the header `sid` works too)",
        },
        sid_query: { type: "apiKey", in: "query", name: "sid" },
        sid_cookie: {
          type: "apiKey",
          in: "cookie",
          name: "sid",
          description: "only together with the header X-FTL-CSRF carrying the session's csrf",
        },
      },
    },
    security: [{ sid_header: [] }, { sid_query: [] }, { sid_cookie: [] }],
    paths,
  };
}
