// What the CLI and the API use of src/update: where a bundle comes from (a file, an upload, an https
// URL), the checks before anything is written, the install with its progress, and the status.
import { rmSync } from "node:fs";
import { ownWebPorts } from "../net/address-rule.ts";
import { downloadBundle } from "./download.ts";
import { inspect, type Bundle } from "./inspect.ts";
import { install, type Progress } from "./install.ts";
import { writeLast } from "./last.ts";
import { raucSystem, UpdateRefused, type RaucSystem, type UpdateSettings } from "./rauc.ts";
import { requestReboot, type RebootPlan } from "./reboot.ts";

export { UpdateRefused } from "./rauc.ts";
export { updateStatus } from "./status.ts";
export { noticeLastUpdate } from "./notice.ts";
export { uploadPath } from "./download.ts";
export type { Progress } from "./install.ts";

export interface UpdateContext {
  settings: UpdateSettings & { maxDownloadBytes: number; downloadTimeoutMs: number; ownPorts: readonly number[] };
  dataDir: string;
}

/** The `update.*` settings (and the web server's ports, never a download's target) as src/update uses them. */
export function updateContext(
  c: {
    update: UpdateSettings & { maxDownload: number; downloadTimeout: number };
    webserver: { port: string };
  },
  dataDir: string,
): UpdateContext {
  const u = c.update;
  return {
    settings: {
      system: u.system,
      keyring: u.keyring,
      maxDownloadBytes: u.maxDownload * 1024 * 1024,
      downloadTimeoutMs: u.downloadTimeout * 1000,
      ownPorts: ownWebPorts(c.webserver.port),
    },
    dataDir,
  };
}

/** A bundle checked and ready to install; `dispose` removes it when Moat made the copy. */
export interface PreparedBundle {
  sys: RaucSystem;
  path: string;
  bundle: Bundle;
  dispose: () => void;
}

/**
 * The bundle at `source` (a path, or an https:// URL fetched into the data directory), checked: RAUC is
 * there, the signature is the project's, the bundle is whole and built for this system. A refusal is
 * recorded as the last result and thrown as UpdateRefused; nothing was written to a slot.
 */
export async function prepare(ctx: UpdateContext, source: { path: string; owned?: boolean } | { url: string }) {
  const sys = raucSystem(ctx.settings);
  const owned = "url" in source || source.owned === true;
  let path = "";
  const dispose = () => {
    if (owned && path) rmSync(path, { force: true });
  };
  try {
    const { maxDownloadBytes: maxBytes, downloadTimeoutMs: timeoutMs, ownPorts } = ctx.settings;
    path =
      "url" in source ? await downloadBundle(source.url, ctx.dataDir, { maxBytes, timeoutMs, ownPorts }) : source.path;
    const bundle = await inspect(sys, path);
    return { sys, path, bundle, dispose } satisfies PreparedBundle;
  } catch (e) {
    dispose();
    if (e instanceof UpdateRefused) writeLast(ctx.dataDir, { ok: false, version: "", message: e.message });
    throw e;
  }
}

/** Throws UpdateRefused when this machine cannot take updates: before an upload is read. */
export function checkAvailable(ctx: UpdateContext): void {
  raucSystem(ctx.settings);
}

/** Installs a prepared bundle into the other slot; resolves with the sentence that says so. */
export async function installPrepared(
  ctx: UpdateContext,
  b: PreparedBundle,
  onProgress: (p: Progress) => void,
): Promise<string> {
  try {
    return await install(b.sys, ctx.dataDir, b.path, onProgress);
  } finally {
    b.dispose();
  }
}

/** One progress line as the CLI and the API stream show it: ` 40% Checking manifest contents`. */
export const progressLine = (p: Progress) => `${String(p.percent).padStart(3)}% ${p.text}`;

let active = false;

/** One update at a time per process, from the first byte of an upload to the end of the install. */
export function claimUpdate(): () => void {
  if (active) throw new UpdateRefused("an update is being installed already; try again when it has finished");
  active = true;
  return () => {
    active = false;
  };
}

/**
 * Asks the machine to reboot into the slot that boots next (reboot.ts); refused while an install is
 * writing the other slot, which a reboot would cut short.
 */
export function reboot(ctx: UpdateContext, runningVersion: string): Promise<RebootPlan> {
  if (active) throw new UpdateRefused("an update is being installed; reboot when it has finished");
  return requestReboot(ctx.settings, ctx.dataDir, runningVersion);
}
