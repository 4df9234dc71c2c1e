// Where RAUC is and how it is called. The system configuration (update.system) is RAUC's own
// system.conf: the compatible string and the keyring are read from it, so Moat checks a bundle against
// exactly what RAUC will check at install time. update.keyring overrides the keyring (tests, a re-keyed
// project); a bundle is never read without a keyring.
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** The one sentence for a machine without RAUC (a development checkout, a container). */
const NOT_AVAILABLE = "updates are available on the Moat image only";

export interface UpdateSettings {
  /** update.system */
  system: string;
  /** update.keyring ("" = system.conf's) */
  keyring: string;
}

export interface RaucSystem {
  conf: string;
  compatible: string;
  keyring: string;
}

/** A refusal: its message is the whole sentence a person reads (CLI line, API hint). */
export class UpdateRefused extends Error {}

/** [section] key=value of an INI file (RAUC's GKeyFile syntax: `#` comments, no continuation lines). */
function iniValue(text: string, section: string, key: string): string | null {
  let inside = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("[")) inside = line === `[${section}]`;
    else if (inside && line.startsWith(`${key}=`)) return line.slice(key.length + 1).trim();
  }
  return null;
}

/** RAUC's system as update.* describes it, or an UpdateRefused saying why there is none. */
export function raucSystem(s: UpdateSettings): RaucSystem {
  if (!Bun.which("rauc") || !existsSync(s.system)) throw new UpdateRefused(NOT_AVAILABLE);
  const text = readFileSync(s.system, "utf8");
  const compatible = iniValue(text, "system", "compatible");
  if (!compatible) throw new UpdateRefused(`${s.system} names no compatible: ${NOT_AVAILABLE}`);
  // RAUC resolves a relative keyring path against the system.conf's directory
  const fromConf = iniValue(text, "keyring", "path");
  const keyring = s.keyring || (fromConf ? resolve(dirname(s.system), fromConf) : "");
  if (!keyring || !existsSync(keyring))
    throw new UpdateRefused(`no keyring to check bundles against (update.keyring, or [keyring] in ${s.system})`);
  return { conf: s.system, compatible, keyring };
}

export interface RaucRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `rauc --conf=… ARGS` to its end. */
export async function rauc(sys: RaucSystem, args: string[]): Promise<RaucRun> {
  const p = Bun.spawn(["rauc", `--conf=${sys.conf}`, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code: await p.exited, stdout, stderr };
}

/** RAUC's error line without its log chatter ("rauc-Message: … Reading bundle"), for a reply. */
export function raucError(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !/^rauc-(Message|Info|Debug)/.test(l));
  return lines.at(-1) ?? "rauc gave no reason";
}
