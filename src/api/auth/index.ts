// PLACEHOLDER until the auth module lands: open when no password is set, otherwise nothing passes.
import type { Runtime } from "../../core/runtime.ts";
import type { Authenticator } from "../core/auth-hook.ts";
import { Errors } from "../core/errors.ts";

export function createAuth(rt: Runtime): Authenticator {
  return {
    authenticate: () => (rt.config.current.webserver.api.pwhash === "" ? { session: null } : Errors.unauthorized()),
  };
}
