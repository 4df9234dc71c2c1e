// The global blocking switch: persisted as dns.blocking.active, with an in-memory timer that flips
// it back. The DNS engine reads `active` on every query, so it is a plain field.
import type { ConfigStore } from "../config/index.ts";
import type { EventBus } from "./events.ts";

/** setTimeout's largest delay (a signed 32-bit number of milliseconds). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export class BlockingSwitch {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerEndsAt: number | undefined;
  private targetAfterTimer = true;
  private state: boolean;

  constructor(
    private readonly config: ConfigStore,
    private readonly events: EventBus,
  ) {
    this.state = config.current.dns.blocking.active;
    config.subscribe((next, prev) => {
      if (next.dns.blocking.active !== prev.dns.blocking.active) this.apply(next.dns.blocking.active);
    });
  }

  get active(): boolean {
    return this.state;
  }

  /** Seconds until the timer flips the state, or null. */
  get timerRemaining(): number | null {
    if (this.timerEndsAt === undefined) return null;
    return Math.max(0, (this.timerEndsAt - Date.now()) / 1000);
  }

  /**
   * Sets the state; a timer > 0 flips it back after that many seconds. Asking for the current state
   * only (re)sets the timer, whose target is then always "enabled" (Pi-hole's behaviour).
   */
  set(active: boolean, timerSeconds: number | null): void {
    const same = active === this.active;
    this.restore(
      active,
      timerSeconds !== null && timerSeconds > 0 ? Date.now() + timerSeconds * 1000 : null,
      same ? true : !active,
    );
  }

  /** When the timer ends (ms since epoch), or null. */
  get timerEnd(): number | null {
    return this.timerEndsAt ?? null;
  }

  /** The state the timer switches to, or null without a timer. */
  get timerTarget(): boolean | null {
    return this.timerEndsAt === undefined ? null : this.targetAfterTimer;
  }

  /**
   * Sets the state and a timer that ends at `endsAt` (ms since epoch) switching to `after`: how
   * another node's switch and timer are taken over as they are.
   */
  restore(active: boolean, endsAt: number | null, after: boolean): void {
    this.clearTimer();
    const same = active === this.active;
    if (!same) this.write(active);
    if (endsAt !== null && endsAt > Date.now()) {
      this.targetAfterTimer = after;
      this.timerEndsAt = endsAt;
      this.arm();
    }
    // a timer set or cleared without a change of state is news too (the fleet shares it)
    if (same) this.events.emit("blocking-changed", { active });
  }

  /**
   * Waits for timerEndsAt in steps: setTimeout takes at most 2^31-1 ms (24.8 days) and fires at once
   * past it (Node's TimeoutOverflowWarning), so a longer timer is a chain of shorter ones.
   */
  private arm(): void {
    const left = (this.timerEndsAt ?? 0) - Date.now();
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (this.timerEndsAt !== undefined && this.timerEndsAt > Date.now()) return this.arm();
        this.timerEndsAt = undefined;
        this.write(this.targetAfterTimer);
      },
      Math.min(Math.max(left, 0), MAX_TIMEOUT_MS),
    );
  }

  stop(): void {
    this.clearTimer();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerEndsAt = undefined;
  }

  private apply(active: boolean): void {
    if (active === this.state) return;
    this.state = active;
    this.events.emit("blocking-changed", { active });
  }

  /** Persists the state in the config file, unless the environment pins it (then it lives in memory only). */
  private write(active: boolean): void {
    this.apply(active);
    if (!this.config.envForced.has("dns.blocking.active"))
      this.config.update([{ path: "dns.blocking.active", value: active }]);
  }
}
