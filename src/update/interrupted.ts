// An install the machine's stop cut short (a power cut, a crash, a pulled card): install.ts records
// "installing" before RAUC writes the other slot and the result after, so a record still saying
// "installing" from an earlier boot is an install that never finished. That slot holds a partial image
// that RAUC marked bad when it began writing, and the firmware never tries it (the trial is set only
// after the write).
import type { LastResult } from "./last.ts";

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
