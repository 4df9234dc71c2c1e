// Bursts of changes collapse: a script that adds 100 entries one by one must not queue 100 builds.

/**
 * Runs `work` one at a time. A call while it runs asks for one more run after it (however many calls
 * come) and resolves when that run is done, so a caller's change is always in the run it waits for:
 * at most one run in flight and one pending.
 */
export class Coalescer {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(private readonly work: () => Promise<void>) {}

  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const p = (async () => {
      try {
        do {
          this.again = false;
          await this.work();
        } while (this.again);
      } finally {
        this.running = null;
      }
    })();
    this.running = p;
    return p;
  }
}
