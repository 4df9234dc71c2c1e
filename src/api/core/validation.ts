// Turns TypeBox validation failures into one human sentence. The wording reproduces Pi-hole's
// messages for the common cases ("No password found in JSON payload", "Field password has to be of
// type 'string'") so that a single rule serves every route. A schema may name its own message
// (`error`) and key (`errorKey`) where Pi-hole words a case differently.
import type { ValidationError } from "elysia";
import { ApiError, Errors } from "./errors.ts";

interface ValueErr {
  path: string;
  message: string;
  /** `error`: the message, or a function of the value giving it (null: the general wording below) */
  schema: { type?: unknown; error?: unknown; errorKey?: unknown; anyOf?: Array<{ type?: unknown }> };
  value: unknown;
  type: number;
}

const REQUIRED_PROPERTY = 45; // TypeBox ValueErrorType.ObjectRequiredProperty

function typeOf(schema: ValueErr["schema"]): string {
  if (typeof schema.type === "string") return schema.type === "integer" ? "integer" : schema.type;
  if (schema.anyOf) return schema.anyOf.map((s) => String(s.type)).join("' or '");
  return "valid";
}

export function validationToApiError(error: ValidationError): ApiError {
  const where = error.type === "body" ? "JSON payload" : error.type === "query" ? "query string" : error.type;
  if (error.type === "body" && (error.value === null || error.value === undefined)) return Errors.noBody();
  let first: ValueErr | undefined;
  try {
    first = (error.all as unknown as ValueErr[])[0];
  } catch {
    first = undefined;
  }
  if (!first) return Errors.badRequest(`Invalid ${where}`);
  const custom =
    typeof first.schema.error === "function"
      ? (first.schema.error as (value: unknown) => string | null)(first.value)
      : first.schema.error;
  if (typeof custom === "string")
    return new ApiError(
      400,
      typeof first.schema.errorKey === "string" ? first.schema.errorKey : "bad_request",
      custom,
      null,
    );
  const field = first.path.replace(/^\//, "").replace(/\//g, ".");
  if (first.type === REQUIRED_PROPERTY || first.value === undefined)
    return Errors.badRequest(`No ${field} found in ${where}`);
  if (field === "") return Errors.badRequest(`Invalid ${where}: expected an object`);
  return Errors.badRequest(`Field ${field} has to be of type '${typeOf(first.schema)}'`, first.message);
}
