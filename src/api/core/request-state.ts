// Per-request facts gathered before routing (arrival time, client address, session), kept beside
// the Request object so hooks and handlers can read them without threading them through Elysia.

export interface RequestState {
  /** performance.now() at arrival, for `took` */
  started: number;
  /** the client's IP address as seen by the socket */
  ip: string;
  /** whether the auth hook has checked this request's session */
  authenticated?: boolean;
  /** set by the auth hook on protected routes */
  session?: unknown;
  /** headers the auth hook wants on the reply (refreshed cookie) */
  replyHeaders?: Record<string, string>;
  /** a body that could not be parsed, raised before validation */
  bodyError?: Error;
  /** whether the request came over TLS */
  tls: boolean;
}

const states = new WeakMap<Request, RequestState>();

export function setRequestState(req: Request, s: RequestState): void {
  states.set(req, s);
}

export function requestState(req: Request): RequestState {
  let s = states.get(req);
  if (!s) {
    s = { started: performance.now(), ip: "127.0.0.1", tls: false };
    states.set(req, s);
  }
  return s;
}
