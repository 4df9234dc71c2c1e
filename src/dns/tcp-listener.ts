// The DNS-over-TCP side of the listener: framing (tcp-frames.ts), pipelined queries answered as
// they resolve (out of order; the IDs tell them apart, RFC 7766 §6.2.1.1), writes that wait for
// the socket to drain, and the idle timeout.
import type { Socket, SocketHandler } from "bun";
import { normalizeIp } from "../filter/ip.ts";
import type { Answer, Pending } from "./context.ts";
import { FrameReader } from "./tcp-frames.ts";

const TCP_IDLE_SECONDS = 10;

export interface TcpState {
  reader: FrameReader;
  out: Uint8Array[];
  client: string;
}

/** `handle`: one query (a Uint8Array of its own) from `client` in, its answer or nothing out. */
export function tcpHandlers(handle: (msg: Uint8Array, client: string) => Pending): SocketHandler<TcpState> {
  const flush = (s: Socket<TcpState>) => {
    while (s.data.out.length) {
      const chunk = s.data.out[0]!;
      const n = s.write(chunk);
      if (n < chunk.length) {
        s.data.out[0] = chunk.subarray(Math.max(0, n));
        return;
      }
      s.data.out.shift();
    }
  };
  const send = (s: Socket<TcpState>, a: Answer) => {
    if (!a) return;
    const framed = new Uint8Array(a.length + 2);
    framed[0] = a.length >> 8;
    framed[1] = a.length & 0xff;
    framed.set(a, 2);
    s.data.out.push(framed);
    if (s.data.out.length === 1) flush(s);
  };
  return {
    open: (s) => {
      const state: TcpState = { reader: null as unknown as FrameReader, out: [], client: normalizeIp(s.remoteAddress) };
      state.reader = new FrameReader((msg) => {
        const r = handle(msg, state.client);
        if (r instanceof Promise) r.then((a) => send(s, a), () => {});
        else send(s, r);
      });
      s.data = state;
      s.timeout(TCP_IDLE_SECONDS);
    },
    data: (s, chunk) => {
      s.timeout(TCP_IDLE_SECONDS);
      s.data.reader.push(chunk);
    },
    drain: (s) => flush(s),
    timeout: (s) => void s.end(),
    error: () => {},
    close: () => {},
  };
}
