// `moat teleporter export|import FILE` as a child of the server (export-child.ts, import-child.ts):
// the same command a person runs, with the server's data directory and settings file, bounded in time.
import { moatCommand } from "../core/self-command.ts";

/** a backup or restore of the largest lists takes seconds; one that takes this long is stuck */
const CHILD_TIMEOUT_MS = 300_000;

/** Runs the command to its end: what it printed and its exit status. */
export async function runTeleporterChild(
  verb: "export" | "import",
  file: string,
  paths: { dataDir: string; configFile: string },
  env: Record<string, string> = {},
): Promise<{ out: string; code: number; lastError: string }> {
  const child = Bun.spawn(
    [...moatCommand(), "teleporter", verb, file, "--data-dir", paths.dataDir, "--config", paths.configFile],
    {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...(process.env as Record<string, string>), ...env },
    },
  );
  const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { out, code, lastError: err.trim().split("\n").pop() || `the ${verb} stopped (exit ${code})` };
}
