// What the list resources accept as text: the longest name, comment, domain, client and list address
// (in the schemas, so /api/docs shows them), what a client entry may be, and which list addresses
// gravity can fetch. Refused at once, so a bad entry never waits for the next gravity run or query.
import { t } from "elysia";
import { isIP } from "node:net";
import { fileURLToPath } from "node:url";
import { isHostname } from "../../config/host-port.ts";
import { FETCHABLE_SCHEMES } from "../../filter/gravity/download.ts";
import { ownWebPorts, refusedLiteral } from "../../net/address-rule.ts";
import { Errors } from "../core/errors.ts";

/** The longest text of each field, in characters. */
export const MAX_LEN = {
  /** a group name */
  name: 255,
  comment: 1024,
  /** an exact domain (RFC 1035 §2.3.4: 255 octets on the wire, 253 characters as text) */
  domain: 253,
  /** the `domain` field, which also carries regexes */
  regex: 1024,
  /** an IP, CIDR, MAC, host name (253) or `:interface` */
  client: 253,
  /** a list's URL */
  address: 2048,
} as const;

/** What each item field holds, in the words of a form asking for it (an empty one is refused with them). */
export const ITEM_WORDS = {
  name: "Enter a name for the group",
  domain: "Enter a domain, e.g. example.com",
  client: "Enter a client: an IP address, subnet, MAC address or host name",
  address: "Enter the list's address, e.g. https://example.com/hosts.txt",
} as const;

type ValidationHook = (value: unknown) => string | null;

/** The `name`/`domain`/`client`/`address` field: one string or several, each of at most `maxLength` characters. */
export function itemsField(field: string, maxLength: number, what: string) {
  const error: ValidationHook = (value) => {
    const strings = typeof value === "string" ? [value] : Array.isArray(value) ? value : null;
    if (strings?.every((s) => typeof s === "string"))
      return `Invalid request: "${field}" longer than ${maxLength} characters`;
    return `Invalid request: No valid "${field}" in payload (must be either string or array)`;
  };
  return t.Optional(
    t.Union([t.String({ maxLength }), t.Array(t.String({ maxLength }))], {
      description: `${what}: a string or an array of strings, each at most ${maxLength} characters`,
      error,
    }),
  );
}

/** `comment`: a string of at most MAX_LEN.comment characters, or null. */
export const commentField = t.Optional(
  t.Union([t.String({ maxLength: MAX_LEN.comment }), t.Null()], {
    description: `at most ${MAX_LEN.comment} characters`,
    error: ((value) =>
      typeof value === "string"
        ? `Invalid request: "comment" longer than ${MAX_LEN.comment} characters`
        : null) as ValidationHook,
  }),
);

/** An item read from the path (PUT), which no schema sees. */
export function checkLength(item: string, field: string, max: number): void {
  if (item.length > max)
    throw Errors.badRequest(`Invalid request: "${field}" longer than ${max} characters`, `${item.length} characters`);
}

const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i;
/** `:eth0`: a Linux interface name (IFNAMSIZ: at most 15 characters, no `/`, `:` or space). */
const INTERFACE = /^:[^\s/:]{1,15}$/;

/**
 * A client entry as Pi-hole documents it: an IPv4/IPv6 address, a CIDR subnet with a valid prefix,
 * a MAC address, a host name (also a DoT/DoH client ID) or `:interface`. A dotted name whose last
 * label is all digits is a mistyped address (`300.1.1.1`), not a host name (RFC 1123 §2.1).
 */
function clientProblem(client: string): string | null {
  if (isIP(client) || MAC.test(client) || INTERFACE.test(client)) return null;
  const slash = client.indexOf("/");
  if (slash >= 0) {
    const fam = isIP(client.slice(0, slash));
    const prefix = client.slice(slash + 1);
    if (!fam) return "not a valid subnet address";
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (fam === 4 ? 32 : 128))
      return `not a valid prefix length (0 to ${fam === 4 ? 32 : 128})`;
    return null;
  }
  const labels = client.replace(/\.$/, "").split(".");
  if (isHostname(client) && !(labels.length > 1 && /^\d+$/.test(labels[labels.length - 1]!))) return null;
  return "expected an IP address, a CIDR subnet, a MAC address, a host name or :interface";
}

export function validateClients(clients: readonly string[]): void {
  for (const client of clients) {
    const problem = clientProblem(client);
    if (problem) throw Errors.badRequest(`Invalid client: ${problem}`, client);
  }
}

function addressProblem(address: string): string | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return "not a URL (expected http://, https:// or file://)";
  }
  if (!FETCHABLE_SCHEMES.has(url.protocol))
    return `gravity cannot fetch ${url.protocol.replace(/:$/, "")}:// addresses (http://, https:// or file:// only)`;
  if (url.protocol === "file:") {
    try {
      fileURLToPath(url);
    } catch {
      return "not a valid file:// address (file:///path/to/list)";
    }
  } else if (url.hostname === "") return "the address names no host";
  else if (!isIP(url.hostname.replace(/^\[|\]$/g, "")) && !isHostname(url.hostname))
    return `"${url.hostname}" is not a host name (letters, digits and hyphens, no label starting or ending with a hyphen; RFC 1123 §2.1)`;
  return null;
}

/**
 * Each list address gravity could fetch, and none that it must not: link-local addresses (cloud
 * metadata) and Moat's own web server (`webserverPort`: webserver.port) are refused when written
 * literally (in any of its forms); names are checked again when gravity resolves them (src/net/address-rule.ts).
 */
export function validateAddresses(addresses: readonly string[], webserverPort: string): void {
  const own = ownWebPorts(webserverPort);
  for (const address of addresses) {
    const problem = addressProblem(address);
    if (problem) throw Errors.badRequest(`Invalid list address: ${problem}`, address);
    const url = new URL(address);
    const refused = url.protocol === "file:" ? null : refusedLiteral(url, own);
    if (refused) throw Errors.listAddressRefused(refused);
  }
}
