// What a first start runs into, said in sentences instead of system errors: a data directory that cannot
// be made or used, a config file that is not there, a port that is taken or needs root.
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname } from "node:path";

/** A problem the user fixes with a setting or an option; main prints its message alone. */
export class StartError extends Error {}

const OUTSIDE = "run as root (the appliance's default), or use --dev (data in ./.moat-data) or --data-dir DIR";
/** In Moat's container image (its volume /etc/pihole, in a container Docker or podman marked) the fix is on the host. */
function elsewhere(dir: string): string {
  const image = dir === "/etc/pihole" && (existsSync("/.dockerenv") || existsSync("/run/.containerenv"));
  return image
    ? `Moat runs as uid ${process.getuid?.() ?? 1000} in its container: give the volume to it on the host (chown -R 1000:1000 DIR for a bind mount)`
    : OUTSIDE;
}

function whoami(): string {
  let name = "";
  try {
    name = userInfo().username;
  } catch {}
  // Bun answers "unknown" where it finds no name (in the container image, which has no NSS setup of its own)
  return name && name !== "unknown" ? name : `uid ${process.getuid?.() ?? "?"}`;
}

const code = (e: unknown) => (e as NodeJS.ErrnoException).code ?? "";

/** Makes sure `dir` is a directory this user can write, creating it (but not its parents) when missing. */
export function prepareDataDir(dir: string): void {
  let isDir: boolean | null = null;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {}
  if (isDir === false)
    throw new StartError(`the data directory ${dir} is a file, not a directory; pick another with --data-dir DIR`);
  if (isDir === null) {
    const parent = dirname(dir);
    if (!existsSync(parent))
      throw new StartError(
        `cannot create the data directory ${dir}: ${parent} does not exist (create it first, or pick another with --data-dir DIR)`,
      );
    try {
      mkdirSync(dir, { mode: 0o750 });
    } catch (e) {
      if (["EACCES", "EPERM", "EROFS"].includes(code(e)))
        throw new StartError(
          `cannot create the data directory ${dir}: ${whoami()} may not write to ${parent}; ${elsewhere(dir)}`,
        );
      throw new StartError(`cannot create the data directory ${dir}: ${(e as Error).message}`);
    }
    return;
  }
  try {
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    throw new StartError(`the data directory ${dir} is not writable by ${whoami()}; ${elsewhere(dir)}`);
  }
}

/** A config file named with --config must exist, so that a typo does not start Moat on a new, empty one. */
export function checkConfigFile(file: string, init: boolean): void {
  let isFile: boolean | null = null;
  try {
    isFile = statSync(file).isFile();
  } catch {}
  if (isFile === false) throw new StartError(`the config file ${file} is not a regular file`);
  if (isFile) return;
  if (!init)
    throw new StartError(
      `the config file ${file} does not exist; check the path, or add --init to start with a new one there`,
    );
  if (!existsSync(dirname(file)))
    throw new StartError(`cannot create the config file ${file}: ${dirname(file)} does not exist`);
}

/** A config file that does not exist yet starts as a copy of `defaults` (the container's first start). */
export function startFromDefaults(file: string, defaults: string): void {
  if (existsSync(file)) return;
  try {
    copyFileSync(defaults, file);
  } catch (e) {
    throw new StartError(`cannot start ${file} from --defaults ${defaults}: ${(e as Error).message}`);
  }
}

/**
 * The sentence for a listener that could not bind. `setting` is the config key that moves it
 * (dns.port, webserver.port).
 */
export function listenFailure(what: "DNS" | "HTTP", where: string, port: number, e: unknown, setting: string): string {
  const text = `${(e as Error).message ?? e} ${code(e)}`;
  const head = `cannot listen for ${what} on ${where}`;
  if (/EADDRINUSE|in use/i.test(text))
    return `${head}: another program already uses port ${port}; stop it, or choose another port with ${setting}`;
  if (/EACCES|permission denied/i.test(text)) {
    if (port < 1024)
      return `${head}: ports below 1024 need root (or CAP_NET_BIND_SERVICE); run as root, or use --dev (DNS on 1053, HTTP on 8080), or choose another port with ${setting}`;
    return `${head}: permission denied; choose another port with ${setting}`;
  }
  if (/EADDRNOTAVAIL|address not available/i.test(text))
    return `${head}: this machine has no such address; change ${setting}`;
  return `${head}: ${(e as Error).message ?? e}`;
}
