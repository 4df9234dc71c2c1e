// Who a client is, for limits: its IPv4 address, or its IPv6 /64 (one host may use any address of
// its /64, RFC 4291 §2.5.1, so a single address would be free for it to change). Taken from the
// socket only: headers such as X-Forwarded-For are the client's own word and are not trusted.

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
function ipv6Groups(ip: string): number[] | null {
  let addr = ip.split("%")[0]!;
  // an embedded IPv4 tail (::ffff:1.2.3.4, ::1.2.3.4) becomes two groups
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(addr);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    addr = `${addr.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = addr.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail].map((g) =>
    /^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN,
  );
  return groups.some(Number.isNaN) ? null : groups;
}

/** The key limits are counted under: an IPv4 address as is, an IPv6 address as its /64. */
export function clientKey(ip: string): string {
  if (!ip.includes(":")) return ip;
  const g = ipv6Groups(ip);
  if (!g) return ip;
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(":")}::/64`;
}
