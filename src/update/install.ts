// Installing a bundle into the inactive slot through RAUC's service (`rauc install --progress`), which
// writes the slot and asks the bootloader backend to try it at the next reboot. The bundle is inspected
// first, so a refusal is one clear sentence, and only one install runs at a time.
import { inspect } from "./inspect.ts";
import { bootId, writeLast } from "./last.ts";
import { raucError, UpdateRefused, type RaucSystem } from "./rauc.ts";

export interface Progress {
  percent: number;
  text: string;
}

let busy = false;

/** `  40% Checking manifest contents` → {40, "Checking manifest contents"}; other lines → null. */
function parseProgress(line: string): Progress | null {
  const m = /^\s*(\d{1,3})% (.+)$/.exec(line);
  return m ? { percent: Number(m[1]), text: m[2]!.trim() } : null;
}

async function eachLine(stream: ReadableStream<Uint8Array>, f: (line: string) => void): Promise<void> {
  const dec = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    const parts = (rest + dec.decode(chunk, { stream: true })).split(/\r?\n|\r/);
    rest = parts.pop()!;
    for (const l of parts) f(l);
  }
  if (rest) f(rest);
}

/**
 * Installs the bundle at `path`; resolves with the sentence that says what happened, throws UpdateRefused
 * when the bundle is refused or RAUC fails (the slot in use is never touched). The result is recorded for
 * GET /api/info/update.
 */
export async function install(
  sys: RaucSystem,
  dataDir: string,
  path: string,
  onProgress: (p: Progress) => void,
): Promise<string> {
  if (busy) throw new UpdateRefused("an update is being installed already; try again when it has finished");
  busy = true;
  let version = "";
  try {
    version = (await inspect(sys, path)).version;
    onProgress({ percent: 0, text: `Installing version ${version}` });
    // replaced by the result below; left behind only when the machine stops mid-write (interrupted.ts)
    writeLast(dataDir, {
      ok: false,
      version,
      message: `installing version ${version} into the other slot`,
      installing: true,
      boot: bootId(),
    });
    const p = Bun.spawn(["rauc", `--conf=${sys.conf}`, "install", "--progress", path], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    let lastError = "";
    let stderr = "";
    const watch = (line: string) => {
      const pr = parseProgress(line);
      if (pr) onProgress(pr);
      else if (line.startsWith("LastError: ")) lastError = line.slice(11);
    };
    await Promise.all([
      eachLine(p.stdout, watch),
      eachLine(p.stderr, (l) => {
        stderr += `${l}\n`;
        watch(l);
      }),
    ]);
    if ((await p.exited) !== 0)
      throw new UpdateRefused(`installing version ${version} failed: ${lastError || raucError(stderr)}`);
    const message = `installed version ${version} into the other slot; reboot to start it (the old version stays as the fallback)`;
    writeLast(dataDir, { ok: true, version, message });
    return message;
  } catch (e) {
    const message = e instanceof UpdateRefused ? e.message : `the update failed: ${(e as Error).message}`;
    writeLast(dataDir, { ok: false, version, message });
    throw e instanceof UpdateRefused ? e : new UpdateRefused(message);
  } finally {
    busy = false;
  }
}
