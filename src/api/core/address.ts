// Address strings in reply schemas, with their format, so the docs say what they are and the
// conformance test checks it.
import { t } from "elysia";

export const Ipv4 = (description?: string) => t.String({ format: "ipv4", description });
export const Ipv6 = (description?: string) => t.String({ format: "ipv6", description });
/** An IPv4 or IPv6 address. */
export const IpAddress = (description?: string) => t.Union([Ipv4(), Ipv6()], { description });
