// Turning an error into the API's reply: the error envelope for an ApiError, and the 500 (or 507
// for a full disk) for anything a route did not expect. The app's error hook, the web server and
// the login route all answer through here.
import type { Context } from "../../core/runtime.ts";
import { type ApiError, Errors, capEcho, cappedHint, isDiskFull } from "./errors.ts";
import { jsonResponse } from "./reply.ts";
import { requestState } from "./request-state.ts";

/** The reply for an error no route expected: a full disk says so; anything else is logged with its stack. */
export function unexpected(rt: Context, request: Request, error: unknown): ApiError {
  const where = `${request.method} ${new URL(request.url).pathname}`;
  if (isDiskFull(error)) {
    rt.log("error", `API ${where}: the disk is full (${(error as Error).message})`);
    return Errors.diskFull((error as Error).message);
  }
  rt.log("error", `API ${where} failed: ${(error as Error)?.stack ?? String(error)}`);
  return Errors.internal();
}

export function errorResponse(err: ApiError, request: Request, rt: Context): Response {
  const st = requestState(request);
  const body: Record<string, unknown> = {
    error: { key: err.key, message: capEcho(err.message), hint: cappedHint(err.hint ?? null) },
    ...err.extra,
  };
  return jsonResponse(body, err.status, st.started, rt.config.current.webserver.api.prettyJSON);
}
