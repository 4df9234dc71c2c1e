// DNS over HTTPS to an upstream (RFC 8484): POST of the padded query as application/dns-message with
// id 0 (§4.1: friendlier to HTTP caches), or GET with the query in base64url when the URL ends in the
// RFC's URI template `{?dns}` (as resolvers publish it), HTTP/2 when the server offers it (Bun's fetch multiplexes
// requests on one connection), else HTTP/1.1 keep-alive. The URL names the address (looked up through
// the bootstrap servers when a host name was given) and the certificate is checked against the host.
import { padQuery } from "./padding.ts";
import { Health, type EncryptedTransport, type TransportOptions } from "./transport.ts";

/** Largest DNS message (RFC 1035 over TCP, RFC 8484 §6) */
const MAX_ANSWER = 65535;

export class DohTransport implements EncryptedTransport {
  private readonly health: Health;
  /** null until the first answer tells whether the server speaks HTTP/2 */
  private http2: boolean | null = null;
  private closed = false;
  private readonly aborts = new Set<AbortController>();

  constructor(private readonly opts: TransportOptions) {
    this.health = new Health(opts);
  }

  get lastError(): string | null {
    return this.health.lastError;
  }

  exchange(query: Uint8Array, timeoutMs: number): Promise<Uint8Array | null> {
    if (this.closed || this.health.paused()) return NONE;
    return this.send(query, timeoutMs).then(
      (a) => {
        this.health.answered();
        return a;
      },
      (e: Error) => {
        if (!this.closed) this.health.failed(e.message);
        return null;
      },
    );
  }

  close(): void {
    this.closed = true;
    for (const a of this.aborts) a.abort();
  }

  private async send(query: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const o = this.opts;
    const ip = o.ip ?? (await o.bootstrap.resolve(o.host));
    const msg = query.slice();
    msg[0] = msg[1] = 0;
    const body = padQuery(msg);
    const url = `https://${ip.includes(":") ? `[${ip}]` : ip}:${o.port}${fillTemplate(o.path, body)}`;
    const ac = new AbortController();
    const timer = setTimeout(
      () => ac.abort(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs * (this.http2 === null ? 2 : 1),
    );
    this.aborts.add(ac);
    try {
      let res: Response;
      try {
        res = await this.request(url, body, ac.signal, this.http2 !== false);
        this.http2 ??= true;
      } catch (e) {
        if (
          this.http2 !== null ||
          !/HTTP2Unsupported|http2|ALPN/i.test(`${(e as Error).message} ${(e as { code?: string }).code}`)
        )
          throw e;
        this.http2 = false; // the server offers only HTTP/1.1
        res = await this.request(url, body, ac.signal, false);
      }
      const type = res.headers.get("content-type") ?? "";
      if (res.status !== 200 || !type.toLowerCase().startsWith("application/dns-message")) {
        void res.body?.cancel();
        throw new Error(`answer is not DNS (HTTP ${res.status}, content-type "${type.slice(0, 60)}")`);
      }
      const len = Number(res.headers.get("content-length") ?? 0);
      if (len > MAX_ANSWER) {
        void res.body?.cancel();
        throw new Error(`answer is not DNS (${len} bytes)`);
      }
      const a = new Uint8Array(await res.arrayBuffer());
      if (a.length < 12 || a.length > MAX_ANSWER) throw new Error(`answer is not DNS (${a.length} bytes)`);
      return a;
    } catch (e) {
      if (ac.signal.aborted && ac.signal.reason instanceof Error) throw ac.signal.reason;
      throw new Error(describe(e as Error));
    } finally {
      clearTimeout(timer);
      this.aborts.delete(ac);
    }
  }

  private request(url: string, body: Uint8Array, signal: AbortSignal, http2: boolean): Promise<Response> {
    const o = this.opts;
    const get = o.path.includes(TEMPLATE);
    return fetch(url, {
      method: get ? "GET" : "POST",
      body: get ? undefined : body,
      signal,
      headers: {
        ...(get ? {} : { "content-type": "application/dns-message" }),
        accept: "application/dns-message",
        host: o.port === 443 ? o.host : `${o.host}:${o.port}`,
      },
      tls: { serverName: o.host },
      protocol: http2 ? "http2" : "http1.1",
      keepalive: true,
      redirect: "error",
    } as RequestInit);
  }
}

/** RFC 8484 §4.1's URI template: an upstream written with it is asked by GET. */
const TEMPLATE = "{?dns}";

/** The path with the template filled in with the query (base64url without padding), or as given for POST. */
function fillTemplate(path: string, query: Uint8Array): string {
  const i = path.indexOf(TEMPLATE);
  if (i < 0) return path;
  const head = path.slice(0, i);
  return `${head}${head.includes("?") ? "&" : "?"}dns=${Buffer.from(query).toString("base64url")}${path.slice(i + TEMPLATE.length)}`;
}

/** Bun's fetch errors, in the words a user looks for: a certificate problem says so. */
function describe(e: Error): string {
  const code = (e as { code?: string }).code ?? "";
  if (/CERT|SELF_SIGNED|ALTNAME|UNABLE_TO_VERIFY|Hostname/i.test(`${code} ${e.message}`))
    return `certificate refused: ${e.message}${code && !e.message.includes(code) ? ` (${code})` : ""}`;
  return code && !e.message.includes(code) ? `${e.message} (${code})` : e.message;
}

const NONE: Promise<Uint8Array | null> = Promise.resolve(null);
