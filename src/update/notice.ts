// What Moat says at start about how the last update ended, when it did not end as installed: a trial
// that failed and fell back (rollback.ts) or an install the machine's stop cut short (interrupted.ts).
// Said once: the sentence replaces the last result, so the next start finds nothing new.
import { bootId, readLast, writeLast } from "./last.ts";
import type { UpdateSettings } from "./rauc.ts";
import { interruptedSentence } from "./interrupted.ts";
import { rollbackSentence } from "./rollback.ts";
import { updateStatus } from "./status.ts";

export interface UpdateNotice {
  /** the /api/info/messages type */
  type: "UPDATE_ROLLBACK" | "UPDATE_INTERRUPTED";
  text: string;
}

/** The notice not given yet (now recorded as the last result), else null. */
export async function noticeLastUpdate(
  s: UpdateSettings,
  dataDir: string,
  runningVersion: string,
): Promise<UpdateNotice | null> {
  const last = readLast(dataDir);
  if (!last) return null;
  const st = await updateStatus(s, dataDir, runningVersion);
  const rolledBack = rollbackSentence(st);
  const cut = rolledBack ? null : interruptedSentence(last, bootId(), st.running, st.other?.bootname ?? null);
  const text = rolledBack ?? cut;
  if (!text) return null;
  writeLast(dataDir, { ok: false, version: last.version, message: text });
  return { type: rolledBack ? "UPDATE_ROLLBACK" : "UPDATE_INTERRUPTED", text };
}
