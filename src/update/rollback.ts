// After a failed trial boot the firmware brings the old slot back by itself (docs/updates.md); this is
// how Moat learns it: the other slot holds the version last installed, and RAUC's backend says it is bad
// (moat-health marked it so before going back). Said once: the sentence replaces the last result.
import { writeLast } from "./last.ts";
import type { UpdateSettings } from "./rauc.ts";
import { updateStatus } from "./status.ts";

/** The sentence for a fallback not reported yet (and now recorded as the last result), else null. */
export async function noticeRollback(
  s: UpdateSettings,
  dataDir: string,
  runningVersion: string,
): Promise<string | null> {
  const st = await updateStatus(s, dataDir, runningVersion);
  const other = st.other;
  if (!st.available || !other?.version || other.bootStatus !== "bad") return null;
  // only the install Moat made and has not reported on: a second start says nothing new
  if (!st.last?.ok || st.last.version !== other.version) return null;
  const message = `the update to version ${other.version} did not start; Moat is back on version ${runningVersion}${st.running.slot ? ` (slot ${st.running.slot})` : ""}`;
  writeLast(dataDir, { ok: false, version: other.version, message });
  return message;
}
