// GET /api/tls and GET /api/tls/mobileconfig (Moat's own): the certificate HTTPS and DNS over TLS
// serve now and where a device finds Moat's encrypted DNS (the dashboard's "Encrypted DNS" card),
// and an Apple configuration profile that sets it up on an iPhone or a Mac (mobileconfig.ts).
import { networkInterfaces } from "node:os";
import { Elysia, t } from "elysia";
import { parseWebPort, type Config } from "../../config/index.ts";
import { CLIENT_ID, type TlsMaterial } from "../../tls/store.ts";
import { CertificateInfo } from "../action/tls.ts";
import { Errors } from "../core/errors.ts";
import { moatOnly } from "../core/route-meta.ts";
import type { ApiDeps } from "../deps.ts";
import { documented } from "../docs/meta.ts";
import { mobileconfig } from "./mobileconfig.ts";

const TlsReply = t.Object({
  tls: t.Object({
    certificate: CertificateInfo,
    dot: t.Object({ port: t.Integer({ description: "dns.tls.port: the DNS-over-TLS port, 0: off" }) }),
    doh: t.Object({
      ports: t.Array(t.Integer(), { description: "HTTPS ports (webserver.port entries ending in s): /dns-query" }),
    }),
    name: t.Union([t.String(), t.Null()], {
      description: "the name devices use; with *.name on the certificate, <id>.name carries a client ID",
    }),
    clientIds: t.Boolean({ description: "the certificate covers *.name, so DoT server names can carry client IDs" }),
    addresses: t.Array(t.String(), { description: "this machine's addresses (loopback and link-local left out)" }),
  }),
});

const ProfileQuery = t.Object({
  proto: t.Optional(t.Union([t.Literal("doh"), t.Literal("dot")], { description: "doh (default) or dot" })),
  client: t.Optional(
    t.String({ maxLength: 64, description: "a client ID (letters, digits, hyphens): its client entry's groups apply" }),
  ),
});

/** webserver.domain when the certificate has it with its subdomains, else the first such name, else its first name. */
function baseName(m: TlsMaterial, c: Config): { name: string | null; clientIds: boolean } {
  const wild = m.names.filter((n) => n.startsWith("*.")).map((n) => n.slice(2));
  const pick = wild.includes(c.webserver.domain) ? c.webserver.domain : wild[0];
  if (pick) return { name: pick, clientIds: true };
  return { name: m.names.find((n) => n !== "localhost") ?? m.names[0] ?? null, clientIds: false };
}

const httpsPorts = (c: Config) =>
  c.webserver.port
    .split(",")
    .map((e) => parseWebPort(e.trim()))
    .filter((p) => p?.tls)
    .map((p) => p!.port);

function ownAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (!a.internal && !a.address.toLowerCase().startsWith("fe80")) out.push(a.address);
  return out;
}

export function tlsRoutes(rt: Pick<ApiDeps, "tls" | "config">) {
  return new Elysia({ name: "tls" })
    .get(
      "/tls",
      () => {
        const m = rt.tls.current();
        const c = rt.config.current;
        const { name, clientIds } = baseName(m, c);
        return {
          tls: {
            certificate: { names: m.names, notAfter: m.notAfter, fingerprint: m.fingerprint, user: m.user },
            dot: { port: c.dns.tls.port },
            doh: { ports: httpsPorts(c) },
            name,
            clientIds,
            addresses: ownAddresses(),
          },
        };
      },
      {
        response: TlsReply,
        detail: moatOnly(
          documented(
            {
              tags: ["Encrypted DNS"],
              summary: "The certificate in force and where devices reach DNS over TLS and HTTPS",
            },
            {},
          ),
        ),
      },
    )
    .get(
      "/tls/mobileconfig",
      ({ query }) => {
        const proto = query.proto ?? "doh";
        const id = query.client?.toLowerCase() || null;
        if (id !== null && !CLIENT_ID.test(id))
          throw Errors.badRequest("Not a client ID", "letters, digits and hyphens, up to 64");
        const c = rt.config.current;
        const m = rt.tls.current();
        const { name, clientIds } = baseName(m, c);
        if (!name) throw Errors.badRequest("The certificate names no host", "webserver.tls.cert");
        if (id !== null && !clientIds)
          throw Errors.badRequest(
            "The certificate has no *.name entry, so it cannot carry a client ID",
            m.names.join(", "),
          );
        let url = "";
        let serverName = "";
        if (proto === "doh") {
          const port = httpsPorts(c)[0];
          if (port === undefined)
            throw Errors.badRequest("DNS over HTTPS is off", "no webserver.port entry ends in s (e.g. 443s)");
          url = `https://${name}${port === 443 ? "" : `:${port}`}/dns-query${id ? `/${id}` : ""}`;
        } else {
          if (c.dns.tls.port === 0) throw Errors.badRequest("DNS over TLS is off", "dns.tls.port is 0");
          serverName = id ? `${id}.${name}` : name;
        }
        const xml = mobileconfig({
          proto,
          url,
          serverName,
          addresses: ownAddresses(),
          caPem: m.user ? null : rt.tls.authorityPem(),
          label: `Moat DNS over ${proto === "doh" ? "HTTPS" : "TLS"}${id ? ` (${id})` : ""}`,
        });
        return new Response(xml, {
          headers: {
            "content-type": "application/x-apple-aspen-config",
            "content-disposition": `attachment; filename="moat-${proto}${id ? `-${id}` : ""}.mobileconfig"`,
          },
        });
      },
      {
        query: ProfileQuery,
        detail: moatOnly(
          documented(
            {
              tags: ["Encrypted DNS"],
              summary: "An Apple configuration profile (.mobileconfig) that sets a device's DNS to Moat's DoH or DoT",
            },
            {
              responses: {
                200: "The profile (plist XML; with Moat's own authority as a trusted root when it signed the certificate)",
              },
              replyType: "application/x-apple-aspen-config",
            },
          ),
        ),
      },
    );
}
