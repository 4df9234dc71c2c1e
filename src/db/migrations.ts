// Versioned schema changes. Append a step with the next `to`; never edit a step that has shipped.
import type { Migration } from "./open.ts";

/** Moat's additions to gravity.db (info.moat_schema), beside Pi-hole's tables. */
export const GRAVITY_MIGRATIONS: readonly Migration[] = [];

/** Changes to pihole-FTL.db after Pi-hole's version 21. */
export const QUERY_MIGRATIONS: readonly Migration[] = [];
