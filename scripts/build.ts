// `npm run build`: one self-contained binary, dist/moat, with the dashboard embedded.
// Extra arguments go to `bun build` (e.g. --target=bun-linux-arm64 --outfile dist/moat-arm64).
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const extra = process.argv.slice(2);
const git = (args: string[]) => {
  const r = Bun.spawnSync(["git", ...args], { cwd: root, stderr: "ignore" });
  return r.exitCode === 0 ? r.stdout.toString().trim() : "";
};
const commit = git(["rev-parse", "--short=8", "HEAD"]) || "unknown";
// Reproducible: the build date is the commit's date, not the wall clock.
const date = git(["log", "-1", "--format=%cI"]) || new Date(0).toISOString();

// Workers are loaded by URL at run time, so each must be its own entry point of the binary. With Bun
// 1.4.5 a binary of nine entry points (main and eight workers) hung at start, its query writer never
// answering; any eight start (test/build.test.ts). Give a new job to a thread that exists (the
// long-term reader runs the start-up's integrity check) rather than adding a ninth.
const workers = [...new Bun.Glob("src/**/*worker.ts").scanSync({ cwd: root })].sort().map((f) => join(root, f));
const outfile = extra.some((a) => a.startsWith("--outfile")) ? [] : ["--outfile", join(root, "dist/moat")];
const cmd = [
  process.execPath,
  "build",
  "--compile",
  "--minify-syntax",
  "--sourcemap=none",
  `--define=MOAT_BUILD_COMMIT=${JSON.stringify(commit)}`,
  `--define=MOAT_BUILD_DATE=${JSON.stringify(date)}`,
  join(root, "src/main.ts"),
  ...workers,
  ...outfile,
  ...extra,
];
const p = Bun.spawnSync(cmd, { cwd: root, stdout: "inherit", stderr: "inherit" });
process.exit(p.exitCode ?? 1);
