// Builds DHCP client messages byte by byte for the tests (independent of the server's own encoder).
export function dhcpMessage(o: {
  op?: number;
  xid: number;
  mac: string;
  ciaddr?: string;
  type: number | null;
  options?: number[][];
  cookie?: number;
}): Buffer {
  const b = Buffer.alloc(240);
  b[0] = o.op ?? 1;
  b[1] = 1;
  b[2] = 6;
  b.writeUInt32BE(o.xid, 4);
  if (o.ciaddr) o.ciaddr.split(".").forEach((x, i) => (b[12 + i] = Number(x)));
  o.mac.split(":").forEach((x, i) => (b[28 + i] = parseInt(x, 16)));
  b.writeUInt32BE(o.cookie ?? 0x63825363, 236);
  const opts: number[] = [];
  if (o.type !== null) opts.push(53, 1, o.type);
  for (const opt of o.options ?? []) opts.push(...opt);
  opts.push(255);
  return Buffer.concat([b, Buffer.from(opts)]);
}

/** The reply's message type and yiaddr, read the way a client reads them. */
export function readReply(hex: string): {
  op: number;
  xid: number;
  type: number;
  yiaddr: string;
  options: Map<number, Buffer>;
} {
  const b = Buffer.from(hex, "hex");
  const options = new Map<number, Buffer>();
  for (let i = 240; i < b.length && b[i] !== 255; ) {
    if (b[i] === 0) {
      i++;
      continue;
    }
    options.set(b[i]!, b.subarray(i + 2, i + 2 + b[i + 1]!));
    i += 2 + b[i + 1]!;
  }
  return {
    op: b[0]!,
    xid: b.readUInt32BE(4),
    type: options.get(53)?.[0] ?? 0,
    yiaddr: [...b.subarray(16, 20)].join("."),
    options,
  };
}
