// The route groups that read the queries answered so far (statistics, the query log, history, PADD).
import { Elysia } from "elysia";
import type { ApiDeps } from "../deps.ts";

/** A route group whose every request first waits for the DNS threads' batches: it sees every query answered before it. */
export const queryReads = <const Name extends string>(rt: Pick<ApiDeps, "dns">, name: Name) =>
  new Elysia({ name }).onBeforeHandle(() => rt.dns.syncRecords());
