// A Bun macro: it runs when bundled.ts is compiled (at `bun build --compile`, or on the first
// dashboard request when Moat runs from source), so the binary carries the finished bundle.
import { join } from "node:path";

export interface BundleFile {
  name: string;
  text: string;
}

export function uiBundle(): BundleFile[] {
  const p = Bun.spawnSync([process.execPath, join(import.meta.dir, "build-ui.ts")], { stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`dashboard bundle failed:\n${p.stderr.toString()}`);
  return JSON.parse(p.stdout.toString()) as BundleFile[];
}
