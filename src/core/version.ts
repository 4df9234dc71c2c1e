// Moat's version, build date and commit. A compiled binary gets date and commit from `scripts/build.ts`
// (--define); running from source reads them from git. The version is package.json's unless the build
// defines MOAT_BUILD_VERSION (the image test compiles a "version 2" that way: scripts/image-lib/update-checks.sh).
import pkg from "../../package.json" with { type: "json" };

declare const MOAT_BUILD_COMMIT: string | undefined;
declare const MOAT_BUILD_DATE: string | undefined;
declare const MOAT_BUILD_VERSION: string | undefined;

export interface VersionInfo {
  version: string;
  commit: string;
  date: string;
  runtime: { name: "bun"; version: string };
}

function gitCommit(): string {
  try {
    const r = Bun.spawnSync(["git", "rev-parse", "--short=8", "HEAD"], { cwd: import.meta.dir, stderr: "ignore" });
    return r.exitCode === 0 ? r.stdout.toString().trim() : "unknown";
  } catch {
    return "unknown";
  }
}

export function versionInfo(): VersionInfo {
  const compiled = typeof MOAT_BUILD_COMMIT === "string";
  return {
    version: `v${typeof MOAT_BUILD_VERSION === "string" ? MOAT_BUILD_VERSION : pkg.version}`,
    commit: compiled ? MOAT_BUILD_COMMIT! : gitCommit(),
    date: typeof MOAT_BUILD_DATE === "string" ? MOAT_BUILD_DATE : new Date().toISOString(),
    runtime: { name: "bun", version: Bun.version },
  };
}
