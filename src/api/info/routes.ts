// GET /api/info/version, /api/info/login and /api/info/client (the latter two are public).
import { Elysia, t } from "elysia";
import type { Runtime } from "../../core/runtime.ts";
import { requestState } from "../core/request-state.ts";

const Local = t.Object({ branch: t.String(), version: t.String(), hash: t.String(), date: t.Optional(t.String()) });
const Remote = t.Object({ version: t.Union([t.String(), t.Null()]), hash: t.Union([t.String(), t.Null()]) });

export function infoRoutes(rt: Runtime) {
  const v = rt.version;
  return new Elysia({ name: "info" })
    .get(
      "/info/version",
      () => ({
        version: {
          // Pi-hole clients read core/web/ftl; Moat is all three in one binary.
          core: { local: { branch: v.branch, version: v.version, hash: v.commit }, remote: { version: null, hash: null } },
          web: { local: { branch: v.branch, version: v.version, hash: v.commit }, remote: { version: null, hash: null } },
          ftl: { local: { branch: v.branch, version: v.version, hash: v.commit, date: v.date }, remote: { version: null, hash: null } },
          docker: { local: null, remote: null },
          moat: { version: v.version, commit: v.commit, date: v.date, runtime: `${v.runtime.name} ${v.runtime.version}` },
        },
      }),
      {
        response: t.Object({
          version: t.Object({
            core: t.Object({ local: Local, remote: Remote }),
            web: t.Object({ local: Local, remote: Remote }),
            ftl: t.Object({ local: Local, remote: Remote }),
            docker: t.Object({ local: t.Null(), remote: t.Null() }),
            moat: t.Object({ version: t.String(), commit: t.String(), date: t.String(), runtime: t.String() }),
          }),
        }),
        detail: { tags: ["Info"], summary: "Version of Moat, its build and its runtime" },
      },
    )
    .get("/info/login", () => ({ https_port: 0, dns: rt.dnsRunning() }), {
      response: t.Object({ https_port: t.Integer({ description: "0: Moat serves no HTTPS yet" }), dns: t.Boolean() }),
      detail: { tags: ["Info"], summary: "What the login page needs (public)" },
    })
    .get(
      "/info/client",
      ({ request }) => ({
        remote_addr: requestState(request).ip,
        http_version: "1.1",
        method: request.method,
        headers: [...request.headers].map(([name, value]) => ({ name, value })),
      }),
      {
        response: t.Object({
          remote_addr: t.String(),
          http_version: t.String(),
          method: t.String(),
          headers: t.Array(t.Object({ name: t.String(), value: t.String() })),
        }),
        detail: { tags: ["Info"], summary: "What the server sees of the caller (public)" },
      },
    );
}
