// POST /api/action/tls/regenerate (Moat's own): a new server certificate from Moat's authority for
// pi.hole, the host name and the machine's addresses; HTTPS and DNS over TLS switch to it at once.
// Devices that trust the authority (GET /tls/ca.crt) keep trusting the new one.
import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { documented } from "../docs/meta.ts";
import { moatOnly } from "../core/route-meta.ts";
import { ApiError } from "../core/errors.ts";

export const CertificateInfo = t.Object({
  names: t.Array(t.String(), { description: "DNS names the certificate covers (*.name: client IDs as <id>.name)" }),
  notAfter: t.String({ description: "end of validity, ISO 8601" }),
  fingerprint: t.String({ description: "SHA-256 fingerprint, colon-separated hex" }),
  user: t.Boolean({ description: "true: the served certificate is webserver.tls.cert's, not the generated one" }),
});

export function tlsActionRoutes(rt: Pick<ApiDeps, "tls" | "log">) {
  return new Elysia({ name: "action-tls" }).post(
    "/action/tls/regenerate",
    () => {
      let m: ReturnType<typeof rt.tls.regenerate>;
      try {
        m = rt.tls.regenerate();
      } catch (e) {
        throw new ApiError(500, "server_error", "Cannot make a certificate", (e as Error).message);
      }
      rt.log("info", `TLS certificate regenerated through the API (${m.fingerprint.slice(0, 23)}…)`);
      return {
        status: "success" as const,
        certificate: { names: m.names, notAfter: m.notAfter, fingerprint: m.fingerprint, user: m.user },
      };
    },
    {
      response: t.Object({ status: t.Literal("success"), certificate: CertificateInfo }),
      detail: moatOnly(
        documented(
          {
            tags: ["Actions"],
            summary: "Make a new self-signed server certificate (HTTPS and DNS over TLS use it at once)",
          },
          {
            responses: {
              200: "The certificate now served (webserver.tls.cert's when one is set: then the new one waits in the data directory)",
            },
          },
        ),
      ),
    },
  );
}
