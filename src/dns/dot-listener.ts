// DNS over TLS for clients (RFC 7858) on dns.tls.port: the same framing, pipelining, limits and resolver
// chain as DNS over TCP (tcp-listener.ts's TcpConnections, its own set: at most MAX_TLS_CONNECTIONS in
// all and dns.tcp.maxConnectionsPerClient per client), with the certificate of src/tls and the client
// ID taken from the server name the client asked for (`<id>.pi.hole`). A client opening thousands of
// connections cannot take the memory or the DNS down; a handshake that stalls ends with the idle timeout.
import type { Socket, SocketHandler, TCPSocketListener } from "bun";
import { clientIdFromServerName, type TlsMaterial, type TlsStore } from "../tls/store.ts";
import type { Pending } from "./context.ts";
import { HALF_OPEN, TcpConnections, type TcpLimits, type TcpState } from "./tcp-listener.ts";

const MAX_TLS_CONNECTIONS = 1000;

export interface DotListener {
  port: number;
  stop(): void;
}

export function startDotListener(o: {
  port: number;
  tls: TlsStore;
  handle: (msg: Uint8Array, client: string, clientId: string | null) => Pending;
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** dns.tcp: the per-client limit applies to DoT too */
  limits: () => TcpLimits;
}): DotListener {
  const conns = new TcpConnections(o.handle, () => ({
    maxConnections: MAX_TLS_CONNECTIONS,
    maxConnectionsPerClient: o.limits().maxConnectionsPerClient,
  }));
  const base = conns.handlers();
  let warned = 0;
  let material = o.tls.current();
  const handlers: SocketHandler<TcpState> = {
    ...base,
    open: (s: Socket<TcpState>) => {
      if (conns.size >= MAX_TLS_CONNECTIONS && Date.now() - warned > 60_000) {
        warned = Date.now();
        o.log(
          "warn",
          `DNS over TLS: ${MAX_TLS_CONNECTIONS} connections open; new ones replace idle ones or are closed`,
        );
      }
      base.open!(s);
    },
    handshake: (s: Socket<TcpState>, ok: boolean) => {
      if (!ok || !s.data) return;
      s.data.clientId = clientIdFromServerName(s.getServername() || undefined, material);
    },
  } as SocketHandler<TcpState>;
  const listen = (m: TlsMaterial): TCPSocketListener<TcpState> => {
    const opts = { port: o.port, tls: { key: m.keyPem, cert: m.certPem }, socket: handlers, ...HALF_OPEN };
    try {
      return Bun.listen<TcpState>({ hostname: "::", ...opts });
    } catch (e) {
      if (/EADDRINUSE/.test(`${(e as Error).message} ${(e as { code?: string }).code}`)) throw e;
      return Bun.listen<TcpState>({ hostname: "0.0.0.0", ...opts }); // no IPv6 on this host
    }
  };
  let server = listen(material);
  const unsub = o.tls.onChange((m) => {
    material = m;
    try {
      const port = server.port;
      server.stop(false); // open connections finish on the old certificate
      server = listen(m);
      o.log("info", `DNS over TLS on port ${port} now serves the new certificate`);
    } catch (e) {
      o.log("error", `DNS over TLS: cannot listen again with the new certificate: ${(e as Error).message}`);
    }
  });
  return {
    get port() {
      return server.port;
    },
    stop() {
      unsub();
      server.stop(true);
      conns.stop();
    },
  };
}
