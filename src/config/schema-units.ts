// What the sections of the settings tree (schema.ts) share: the ranges of durations and the flags
// that mark a key as restarting the server, as Moat's own, or as kept for Pi-hole only.

// Ranges of the numbers (every integer setting has one, leaf.ts).
export const DAY = 86400;
export const WEEK = 7 * DAY;
export const YEAR = 365 * DAY;
/** Days whose seconds still fit a signed 32-bit number, FTL's limit for day counts (INT_MAX / 86400). */
export const MAX_DAYS = 24855;

export const restart = { flags: { restart: true } } as const;
/** Moat's own settings: absent from Pi-hole's tree, so hidden from /api/config in compatibility mode. */
export const moat = { flags: { moatOnly: true } } as const;
/** Accepted and stored so a Pi-hole configuration round-trips; Moat has no use for the value. */
export const COMPAT = "(kept for Pi-hole compatibility; Moat does not use it)";
