// `moat teleporter export|import FILE` as a child of the server (export-child.ts, import-child.ts):
// the same command a person runs, with the server's data directory and settings file, bounded in time.
import { runSelf } from "../core/self-command.ts";

/** a backup or restore of the largest lists takes seconds; one that takes this long is stuck */
const CHILD_TIMEOUT_MS = 300_000;

/** Runs the command to its end: what it printed and its exit status. */
export async function runTeleporterChild(
  verb: "export" | "import",
  file: string,
  paths: { dataDir: string; configFile: string },
  env: Record<string, string> = {},
): Promise<{ out: string; code: number; lastError: string }> {
  const { out, err, code } = await runSelf(
    ["teleporter", verb, file, "--data-dir", paths.dataDir, "--config", paths.configFile],
    env,
    CHILD_TIMEOUT_MS,
  );
  return { out, code, lastError: err.trim().split("\n").pop() || `the ${verb} stopped (exit ${code})` };
}
