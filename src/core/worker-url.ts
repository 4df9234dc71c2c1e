// Where a worker module lives. From source it is a file under src/; inside a compiled binary every
// worker is an extra entry point of `bun build --compile` (scripts/build.ts), stored under
// /$bunfs/root/ by its path relative to src/ — not relative to the module that starts it, because
// the whole bundle shares main.ts's import.meta.url.
export function workerUrl(pathFromSrc: string): string {
  if (import.meta.url.includes("$bunfs")) return `file:///$bunfs/root/${pathFromSrc}`;
  return new URL(`../${pathFromSrc}`, import.meta.url).href;
}
