// `moat update [FILE|URL] [--reboot]`: without an argument, the update status; with one, checks the bundle
// and installs it into the other slot, progress on stdout, then with --reboot asks for the reboot that
// tries it (the request the API's reboot leaves). A refusal is one line on stderr and exit 1.
import { resolve } from "node:path";
import { beginUpdate, progressLine, reboot, UpdateRefused, updateStatus, type UpdateContext } from "./index.ts";

export async function updateCommand(
  args: string[],
  ctx: UpdateContext,
  runningVersion: string,
  rebootAfter = false,
): Promise<number> {
  if (args.length > 1) throw new UpdateRefused("moat update takes one bundle: a file or an https:// URL");
  const what = args[0];
  if (what === undefined) {
    if (rebootAfter) throw new UpdateRefused("--reboot needs a bundle to install first");
    const s = await updateStatus(ctx.settings, ctx.dataDir, runningVersion);
    console.log(`running: ${runningVersion}${s.running.slot ? ` (slot ${s.running.slot})` : ""}`);
    if (!s.available) console.log(s.message);
    if (s.other)
      console.log(
        `other slot ${s.other.bootname}: ${s.other.version ?? "no update installed"} (${s.other.bootStatus}${s.other.primary ? ", boots next" : ""})`,
      );
    if (s.last) console.log(`last update (${s.last.at}): ${s.last.message}`);
    return 0;
  }
  const source = /^[a-z][a-z0-9+.-]*:\/\//i.test(what) ? { url: what } : { path: resolve(what) };
  const update = await beginUpdate(ctx, async () => source);
  console.log(`bundle: version ${update.bundle.version} for ${update.bundle.compatible}, signature good`);
  console.log(await update.install((p) => console.log(progressLine(p))));
  if (rebootAfter) {
    const plan = await reboot(ctx, runningVersion);
    console.log(`rebooting into slot ${plan.slot ?? "?"}${plan.tryboot ? " to try the new version once" : ""}`);
  }
  return 0;
}
