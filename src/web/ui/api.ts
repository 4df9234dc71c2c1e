// Talks to Moat's public API as Pi-hole's web interface does: the session cookie (HttpOnly, set by
// POST /api/auth) plus the CSRF token in the X-CSRF-Token header. A 401 sends the person to the
// login page (see session.ts), which brings them back to where they were.
import { known } from "./i18n.ts";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly key: string,
    message: string,
    readonly hint: unknown,
  ) {
    super(message);
  }
  /** the config key a validation error names ("dns.upstreams[0]: …" → "dns.upstreams") */
  get field(): string | null {
    const h = typeof this.hint === "string" ? this.hint : "";
    const m = /^([A-Za-z]\w*(?:\.\w+)+)/.exec(h);
    return m ? m[1]! : null;
  }
  /** the message with its hint, as a person should read it */
  get text(): string {
    const h = typeof this.hint === "string" && this.hint ? ` (${this.hint})` : "";
    return known(this.message) + h;
  }
}

const CSRF_KEY = "moat.csrf";
let onUnauthorized: () => void = () => {};

export function setCsrf(token: string | null): void {
  if (token) localStorage.setItem(CSRF_KEY, token);
  else localStorage.removeItem(CSRF_KEY);
}

/** whether this browser holds a session's CSRF token (set at login, removed at logout) */
export function hasCsrf(): boolean {
  return localStorage.getItem(CSRF_KEY) !== null;
}

export function whenUnauthorized(fn: () => void): void {
  onUnauthorized = fn;
}

function headers(json: boolean): Record<string, string> {
  const h: Record<string, string> = {};
  const csrf = localStorage.getItem(CSRF_KEY);
  if (csrf) h["X-CSRF-Token"] = csrf;
  if (json) h["content-type"] = "application/json";
  return h;
}

async function fail(res: Response): Promise<never> {
  let body: { error?: { key?: string; message?: string; hint?: unknown } } = {};
  try {
    body = (await res.json()) as typeof body;
  } catch {
    // not JSON
  }
  const e = body.error;
  throw new ApiError(
    res.status,
    e?.key ?? "http_error",
    e?.message ?? `${res.status} ${res.statusText}`,
    e?.hint ?? null,
  );
}

/** a raw request to /api…; throws ApiError for any non-2xx status */
export async function request(
  method: string,
  path: string,
  body?: unknown,
  opts: { auth?: boolean } = {},
): Promise<Response> {
  const isForm = body instanceof FormData;
  const res = await fetch(`/api${path}`, {
    method,
    headers: headers(body !== undefined && !isForm),
    body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
    credentials: "same-origin",
  });
  if (res.status === 401 && opts.auth !== false) {
    onUnauthorized();
    await fail(res);
  }
  if (!res.ok && res.status !== 410) await fail(res);
  return res;
}

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await request(method, path, body);
  if (res.status === 204 || res.status === 410) return {} as T;
  return (await res.json()) as T;
}

export const get = <T = unknown>(path: string) => api<T>("GET", path);

type Nested = { [key: string]: unknown };

const isNested = (v: unknown): v is Nested => typeof v === "object" && v !== null && !Array.isArray(v);

/** PATCH /api/config with a nested object built from a dotted key: patchConfig("dns.upstreams", [...]) */
export function patchConfig(values: Record<string, unknown>): Promise<unknown> {
  const config: Nested = {};
  for (const [key, value] of Object.entries(values)) {
    const parts = key.split(".");
    let o = config;
    for (const p of parts.slice(0, -1)) {
      const child = o[p];
      if (isNested(child)) o = child;
      else {
        const fresh: Nested = {};
        o[p] = fresh;
        o = fresh;
      }
    }
    o[parts.at(-1)!] = value;
  }
  return api("PATCH", "/config", { config });
}

export const enc = encodeURIComponent;

/**
 * A streamed text reply (gravity's and an update's progress), handed over as it arrives. Through
 * XMLHttpRequest's progress events rather than fetch's body stream: Chromium reports a fetch read through
 * a stream reader as net::ERR_ABORTED even when it was read to the end, and XHR finishes cleanly. A body
 * goes as `request` sends it: FormData as multipart, anything else as JSON; `onSent` hears how much of it
 * went (0 to 1), for uploads large enough to take a while.
 */
export function streamText(
  method: string,
  path: string,
  onText: (all: string) => void,
  body?: unknown,
  onSent?: (part: number) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const x = new XMLHttpRequest();
    x.open(method, `/api${path}`);
    const isForm = body instanceof FormData;
    for (const [k, v] of Object.entries(headers(body !== undefined && !isForm))) x.setRequestHeader(k, v);
    x.onprogress = () => onText(x.responseText);
    if (onSent) x.upload.onprogress = (e) => e.lengthComputable && onSent(e.loaded / e.total);
    x.onerror = () => reject(new ApiError(0, "network", "the connection to Moat was lost", null));
    x.onload = () => {
      if (x.status === 401) onUnauthorized();
      if (x.status >= 400) {
        let e: { key?: string; message?: string; hint?: unknown } = {};
        try {
          e = (JSON.parse(x.responseText) as { error?: typeof e }).error ?? {};
        } catch {
          // not JSON
        }
        reject(
          new ApiError(x.status, e.key ?? "http_error", e.message ?? `${x.status} ${x.statusText}`, e.hint ?? null),
        );
        return;
      }
      onText(x.responseText);
      resolve(x.responseText);
    };
    x.send(body === undefined ? null : isForm ? body : JSON.stringify(body));
  });
}
