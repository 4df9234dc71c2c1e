// GET /api/info/version, /api/info/login and /api/info/client (the latter two are public).
import { IpAddress } from "../core/address.ts";
import { Elysia, t, type Static } from "elysia";
import { passwordSetIn, totpOnIn } from "../../auth/auth.ts";
import type { Context } from "../../core/runtime.ts";
import { requestState } from "../core/request-state.ts";

/**
 * What Pi-hole's clients read `local.branch` as: "master" is its release branch. PADD compares
 * versions only there and takes any other branch whose local.hash differs from remote.hash as
 * "Updates are available" (padd.sh, GetVersionInformation); remote stays null, because Moat does not
 * look for newer releases, and on "master" a null remote version counts as not newer.
 */
const RELEASE_BRANCH = "master";
const Branch = t.String({ description: '"master": a release build, as Pi-hole names its release branch' });
const Local = t.Object({ branch: Branch, version: t.String(), hash: t.String() });
const Remote = t.Object(
  { version: t.Union([t.String(), t.Null()]), hash: t.Union([t.String(), t.Null()]) },
  { description: "null: Moat does not look for updates" },
);
const Component = t.Object({ local: Local, remote: Remote });
const MoatBuild = t.Object(
  { version: t.String(), commit: t.String(), date: t.String(), runtime: t.String() },
  { description: "Moat's own build (left out in Pi-hole compatibility mode)", "x-moat-only": true },
);
export const VersionReply = t.Object({
  core: Component,
  web: Component,
  ftl: t.Object({
    local: t.Object({ branch: Branch, version: t.String(), hash: t.String(), date: t.String() }),
    remote: Remote,
  }),
  docker: t.Object(
    { local: t.Null(), remote: t.Null() },
    { description: "null: not running in Pi-hole's Docker image" },
  ),
  moat: t.Optional(MoatBuild),
});

/** What /api/info/version (and /api/padd) report: Pi-hole clients read core/web/ftl, and Moat is all three in one binary. */
export function versionInfo(rt: Context): Static<typeof VersionReply> {
  const v = rt.version;
  const local = { branch: RELEASE_BRANCH, version: v.version, hash: v.commit };
  const remote = { version: null, hash: null };
  const out: Static<typeof VersionReply> = {
    core: { local, remote },
    web: { local, remote },
    ftl: { local: { ...local, date: v.date }, remote },
    docker: { local: null, remote: null },
  };
  if (!rt.config.current.webserver.api.piholeCompat)
    out.moat = {
      version: v.version,
      commit: v.commit,
      date: v.date,
      runtime: `${v.runtime.name} ${v.runtime.version}`,
    };
  return out;
}

export function infoRoutes(rt: Context) {
  return (
    new Elysia({ name: "info" })
      .get("/info/version", () => ({ version: versionInfo(rt) }), {
        response: t.Object({ version: VersionReply }),
        detail: { tags: ["Info"], summary: "Version of Moat, its build and its runtime" },
      })
      // dns: the API answers only while DNS runs (src/services.ts starts it first and stops it last).
      // password and totp let the dashboard show its login without asking GET /api/auth, whose 401
      // for a browser without a session every browser logs as an error.
      .get(
        "/info/login",
        () => {
          const api = rt.config.current.webserver.api;
          return {
            https_port: 0,
            dns: true,
            ...(api.piholeCompat ? {} : { password: passwordSetIn(api), totp: totpOnIn(api) }),
          };
        },
        {
          response: t.Object({
            https_port: t.Integer({ description: "0: Moat serves no HTTPS yet" }),
            dns: t.Boolean(),
            password: t.Optional(
              t.Boolean({ description: "whether a login is needed (a password is set)", "x-moat-only": true }),
            ),
            totp: t.Optional(t.Boolean({ description: "whether the login asks for a 2FA code", "x-moat-only": true })),
          }),
          detail: { tags: ["Info"], summary: "What the login page needs (public)" },
        },
      )
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
            remote_addr: IpAddress(),
            http_version: t.String(),
            method: t.String(),
            headers: t.Array(t.Object({ name: t.String(), value: t.String() })),
          }),
          detail: { tags: ["Info"], summary: "What the server sees of the caller (public)" },
        },
      )
  );
}
