// PLACEHOLDER until the auth module lands: replaced by the real /api/auth routes.
import { Elysia } from "elysia";
import type { Runtime } from "../../core/runtime.ts";
import type { Authenticator } from "../core/auth-hook.ts";

export function authRoutes(_rt: Runtime, _auth: Authenticator) {
  return new Elysia({ name: "auth" });
}
