// The reboot that starts an installed update (docs/updates.md, "The reboot"). Moat runs as an unprivileged
// user and cannot reboot the machine itself: it leaves a request file in its data directory, and the
// root-owned `moat-reboot.path` unit (scripts/image-lib/rauc/) sees it appear and starts `moat-reboot.service`,
// which runs `moat-reboot`: the request is deleted, then a plain reboot. Which slot starts is U-Boot's boot
// script's choice from the boot counters (a new version first, while it has tries), so the request carries
// no slot; it carries the boot it was made in, so one a power cut left behind does not reboot the next boot as well.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bootId } from "./last.ts";
import { raucSystem, type UpdateSettings } from "./rauc.ts";
import { updateStatus } from "./status.ts";

/** The file `moat-reboot.path` watches, in the data directory (/etc/moat on the image, Moat's own). */
const REBOOT_REQUEST = "reboot-request";

export interface RebootPlan {
  /** the slot the next boot takes: the pending trial, else the running one; null when RAUC cannot say */
  slot: string | null;
  /** whether that boot is the trial of a new version (RAUC put it first in U-Boot's BOOT_ORDER); the name is
   * the API's, from when the Pi firmware's tryboot flag started trials */
  tryboot: boolean;
}

/**
 * Asks for the reboot: throws UpdateRefused where there are no updates (no RAUC: the path unit exists on
 * the image only); otherwise writes the request (whole, by rename, so the unit never sees half a file)
 * and says which slot boots next.
 */
export async function requestReboot(s: UpdateSettings, dataDir: string, runningVersion: string): Promise<RebootPlan> {
  raucSystem(s);
  const st = await updateStatus(s, dataDir, runningVersion);
  const tryboot = st.other?.primary === true;
  const plan: RebootPlan = { slot: tryboot ? st.other!.bootname : st.running.slot, tryboot };
  const path = join(dataDir, REBOOT_REQUEST);
  // `boot` is what moat-reboot compares; the rest is for a person reading the directory
  const request = { boot: bootId(), at: new Date().toISOString(), ...plan };
  writeFileSync(`${path}.new`, `${JSON.stringify(request)}\n`);
  renameSync(`${path}.new`, path);
  return plan;
}
