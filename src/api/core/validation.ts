// Turns TypeBox validation failures into one human sentence. The wording reproduces Pi-hole's
// messages for the common cases ("No password found in JSON payload", "Field password has to be of
// type 'string'") so that a single rule serves every route. A schema may name its own message
// (`error`) and key (`errorKey`) where Pi-hole words a case differently. A value of the right type
// outside its schema's limits (an empty list of days, a time not HH:MM) is said in words made from
// the schema itself: the field as a person reads it, the limit, and the field's description.
import type { ValidationError } from "elysia";
import { ApiError, Errors } from "./errors.ts";

interface ValueErr {
  path: string;
  message: string;
  /** `error`: the message, or a function of the value giving it (null: the general wording below) */
  schema: {
    type?: unknown;
    error?: unknown;
    errorKey?: unknown;
    anyOf?: Array<{ type?: unknown }>;
    description?: unknown;
    [limit: string]: unknown;
  };
  value: unknown;
  type: number;
}

const REQUIRED_PROPERTY = 45; // TypeBox ValueErrorType.ObjectRequiredProperty

/**
 * The field as a person reads it: `/windows/0/days` is "window 1, days", `/hosts/3` "host 4" (an
 * index counts from 1 and names one of the list before it).
 */
function fieldWords(path: string): string {
  const parts: string[] = [];
  for (const seg of path.split("/").filter(Boolean)) {
    if (/^\d+$/.test(seg) && parts.length > 0) {
      const list = parts.pop()!;
      parts.push(`${list.replace(/(?<=[^s])s$/, "")} ${Number(seg) + 1}`);
    } else parts.push(seg);
  }
  return parts.join(", ");
}

type Schema = ValueErr["schema"];

/** The member of a union that has the value's JSON type (Elysia's t.Integer is a union with numeric text). */
function typedSchema(schema: Schema, value: unknown): Schema | null {
  const jsonType = (t: unknown) =>
    t === "integer"
      ? typeof value === "number" && Number.isInteger(value)
      : t === "number"
        ? typeof value === "number"
        : t === "array"
          ? Array.isArray(value)
          : t === "string"
            ? typeof value === "string"
            : false;
  if (jsonType(schema.type)) return schema;
  const member = (schema.anyOf as Schema[] | undefined)?.find((m) => jsonType(m.type));
  return member ? { description: schema.description, ...member } : null;
}

/**
 * What is wrong with a value of the right type outside its schema's limits, in words; null when the
 * type itself is wrong (Pi-hole's "has to be of type" says that) or no limit explains the failure.
 */
function limitWords(schema: Schema, value: unknown): string | null {
  const s = typedSchema(schema, value);
  if (!s) return null;
  const n = (k: string) => (typeof s[k] === "number" ? (s[k] as number) : undefined);
  if (Array.isArray(value)) {
    const min = n("minItems");
    const max = n("maxItems");
    if (min !== undefined && value.length < min) return min === 1 ? "choose at least one" : `choose at least ${min}`;
    if (max !== undefined && value.length > max) return `at most ${max} allowed`;
  } else if (typeof value === "string") {
    const min = n("minLength");
    const max = n("maxLength");
    if (min !== undefined && value.length < min) return min === 1 ? "cannot be empty" : `at least ${min} characters`;
    if (max !== undefined && value.length > max) return `at most ${max} characters`;
    if (typeof s.pattern === "string" && !new RegExp(s.pattern).test(value)) return "not in the expected form";
  } else if (typeof value === "number") {
    const [min, xmin, max, xmax] = [n("minimum"), n("exclusiveMinimum"), n("maximum"), n("exclusiveMaximum")];
    if (min !== undefined && value < min) return `must be at least ${min}`;
    if (xmin !== undefined && value <= xmin) return `must be more than ${xmin}`;
    if (max !== undefined && value > max) return `must be at most ${max}`;
    if (xmax !== undefined && value >= xmax) return `must be less than ${xmax}`;
  }
  return null;
}

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
  const limit = limitWords(first.schema, first.value);
  if (limit !== null) {
    const about = typeof first.schema.description === "string" ? ` (${first.schema.description})` : "";
    return Errors.badRequest(`${fieldWords(first.path)}: ${limit}${about}`);
  }
  return Errors.badRequest(`Field ${field} has to be of type '${typeOf(first.schema)}'`, first.message);
}
