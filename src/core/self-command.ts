// How to start this program again as a child (a gravity run, a Teleporter export): a compiled binary
// is its own entry point; in development the script follows bun.

export function moatCommand(): string[] {
  const main = Bun.main;
  return /\.(ts|js)$/.test(main) && !main.includes("$bunfs") ? [process.execPath, main] : [process.execPath];
}
