// What GET /api/info/update and `moat update` (without a bundle) report: the running version, the other
// slot's version and state, and the last attempt. The running version is Moat's own (a slot flashed with
// the card has no RAUC record); the other slot's comes from RAUC's slot status.
import { readLast, type LastResult } from "./last.ts";
import { rauc, raucError, raucSystem, UpdateRefused, type UpdateSettings } from "./rauc.ts";

interface SlotInfo {
  /** RAUC's slot name, e.g. rootfs.1 */
  slot: string;
  /** the bootname, e.g. B */
  bootname: string;
  /** the version installed there by RAUC; null: never written by an update */
  version: string | null;
  /** RAUC's boot status: good or bad */
  bootStatus: string;
  /** the next boot takes (or tries) this slot */
  primary: boolean;
}

export interface UpdateStatus {
  available: boolean;
  /** a sentence when updates are off, or RAUC could not say */
  message: string | null;
  running: { version: string; slot: string | null };
  other: SlotInfo | null;
  last: Omit<LastResult, "boot"> | null;
}

interface RaucSlot {
  class?: string;
  bootname?: string;
  state?: string;
  boot_status?: string;
  slot_status?: { bundle?: { version?: string | null } };
}

export async function updateStatus(s: UpdateSettings, dataDir: string, runningVersion: string): Promise<UpdateStatus> {
  const base = { running: { version: runningVersion, slot: null }, other: null, last: withoutBoot(readLast(dataDir)) };
  let sys: ReturnType<typeof raucSystem>;
  try {
    sys = raucSystem(s);
  } catch (e) {
    if (!(e instanceof UpdateRefused)) throw e;
    return { ...base, available: false, message: e.message };
  }
  const r = await rauc(sys, ["status", "--detailed", "--output-format=json"]);
  if (r.code !== 0) return { ...base, available: false, message: `RAUC does not answer: ${raucError(r.stderr)}` };
  const st = JSON.parse(r.stdout) as { booted?: string; boot_primary?: string; slots?: Record<string, RaucSlot>[] };
  const slots = (st.slots ?? []).flatMap((o) => Object.entries(o)).filter(([, v]) => v.class === "rootfs");
  const booted = slots.find(([, v]) => v.state === "booted" || v.bootname === st.booted);
  const other = slots.find(([name]) => name !== booted?.[0]);
  return {
    ...base,
    available: true,
    message: null,
    running: { version: runningVersion, slot: booted?.[1].bootname ?? st.booted ?? null },
    other: other
      ? {
          slot: other[0],
          bootname: other[1].bootname ?? "",
          version: other[1].slot_status?.bundle?.version ?? null,
          bootStatus: other[1].boot_status ?? "",
          primary: st.boot_primary === other[0],
        }
      : null,
  };
}

function withoutBoot(l: LastResult | null): Omit<LastResult, "boot"> | null {
  if (!l) return null;
  const { boot: _boot, ...rest } = l;
  return rest;
}
