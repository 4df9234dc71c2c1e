// After a failed trial U-Boot's boot script brings the old slot back by itself (docs/updates.md): the new
// slot used up its tries (it panicked or hung) or moat-health marked it bad. This is how Moat learns it: the
// other slot holds the version last installed, and RAUC's U-Boot backend says it is bad (no tries left).
import type { UpdateStatus } from "./status.ts";

/** The sentence for a fallback not reported yet, else null. */
export function rollbackSentence(st: UpdateStatus): string | null {
  const other = st.other;
  if (!st.available || !other?.version || other.bootStatus !== "bad") return null;
  // only the install Moat made and has not reported on: a second start says nothing new
  if (!st.last?.ok || st.last.version !== other.version) return null;
  return `the update to version ${other.version} did not start; Moat is back on version ${st.running.version}${st.running.slot ? ` (slot ${st.running.slot})` : ""}`;
}
