// An install the machine's stop cut short (a power cut, a crash, a pulled card): install.ts records
// "installing" before RAUC writes the other slot and the result after, so a record still saying
// "installing" from an earlier boot is an install that never finished. That slot holds a partial image
// that RAUC marked bad when it began writing, and the firmware never tries it (the trial is set only
// after the write). Said once: the sentence replaces the last result.
import { bootId, readLast, writeLast, type LastResult } from "./last.ts";
import type { UpdateSettings } from "./rauc.ts";
import { updateStatus } from "./status.ts";

/**
 * The sentence for an install cut short by the end of `last.boot`, else null. An install recorded in
 * this same boot may still be running (RAUC's service writes on when Moat restarts): nothing to say.
 */
export function interruptedSentence(
  last: LastResult | null,
  thisBoot: string,
  running: { version: string; slot: string | null },
  otherSlot: string | null,
): string | null {
  if (!last?.installing || !last.boot || !thisBoot || last.boot === thisBoot) return null;
  const where = otherSlot ? `slot ${otherSlot}` : "the other slot";
  const on = `${running.version}${running.slot ? ` (slot ${running.slot})` : ""}`;
  return `the update to version ${last.version} did not finish: the machine stopped while it was being written into ${where}; Moat still runs version ${on}, unchanged. Install the update again`;
}

/** The sentence for an install cut short and not reported yet (now recorded as the last result), else null. */
export async function noticeInterrupted(
  s: UpdateSettings,
  dataDir: string,
  runningVersion: string,
): Promise<string | null> {
  const last = readLast(dataDir);
  if (!last?.installing) return null;
  const st = await updateStatus(s, dataDir, runningVersion);
  const message = interruptedSentence(last, bootId(), st.running, st.other?.bootname ?? null);
  if (message) writeLast(dataDir, { ok: false, version: last.version, message });
  return message;
}
