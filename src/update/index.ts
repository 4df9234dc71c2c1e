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
interface PreparedBundle {
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
async function prepare(ctx: UpdateContext, source: { path: string; owned?: boolean } | { url: string }) {
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

/** Installs a prepared bundle into the other slot; resolves with the sentence that says so. */
async function installPrepared(
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
function claimUpdate(): () => void {
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

/** Where a bundle comes from: a file, one Moat wrote (an upload: removed after), or an https:// URL. */
export type BundleSource = { path: string; owned?: boolean } | { url: string };

/** An update whose bundle was checked: `install` writes it into the other slot, once. */
export interface StartedUpdate {
  bundle: Bundle;
  /** Installs into the other slot; resolves with the sentence that says so. Ends the update's claim. */
  install: (onProgress: (p: Progress) => void) => Promise<string>;
}

/**
 * The one update sequence, the CLI's and the API's: claim the update (one at a time), check this machine
 * can take one before `obtain` reads anything (an upload, a download), check the bundle (prepare), then
 * leave the install to the caller, which streams its progress where it likes. A refusal anywhere releases
 * the claim and throws (UpdateRefused, or what `obtain` threw).
 */
export async function beginUpdate(ctx: UpdateContext, obtain: () => Promise<BundleSource>): Promise<StartedUpdate> {
  const release = claimUpdate();
  let prepared: PreparedBundle;
  try {
    raucSystem(ctx.settings);
    prepared = await prepare(ctx, await obtain());
  } catch (e) {
    release();
    throw e;
  }
  let started = false;
  return {
    bundle: prepared.bundle,
    install: async (onProgress) => {
      if (started) throw new UpdateRefused("this update was installed already");
      started = true;
      try {
        return await installPrepared(ctx, prepared, onProgress);
      } finally {
        release();
      }
    },
  };
}
