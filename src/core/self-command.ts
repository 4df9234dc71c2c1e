// How to start this program again as a child (a gravity run, a Teleporter export): a compiled binary
// is its own entry point; in development the script follows bun.

export function moatCommand(): string[] {
  const main = Bun.main;
  return /\.(ts|js)$/.test(main) && !main.includes("$bunfs") ? [process.execPath, main] : [process.execPath];
}

/** Runs this program with `args` to its end, killed after `timeoutMs`: what it printed and its exit status. */
export async function runSelf(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ out: string; err: string; code: number }> {
  const child = Bun.spawn([...moatCommand(), ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { ...(process.env as Record<string, string>), ...env },
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { out, err, code };
}
