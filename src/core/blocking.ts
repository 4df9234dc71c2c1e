// The global blocking switch: persisted as dns.blocking.active, with an in-memory timer that flips
// it back. The DNS engine reads `active` on every query, so it is a plain field.
import type { ConfigStore } from "../config/index.ts";
import type { EventBus } from "./events.ts";

export class BlockingSwitch {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerEndsAt: number | undefined;
  private targetAfterTimer = true;
  private state: boolean;

  constructor(private readonly config: ConfigStore, private readonly events: EventBus) {
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
    this.clearTimer();
    const same = active === this.active;
    if (!same) this.write(active);
    if (timerSeconds !== null && timerSeconds > 0) {
      this.targetAfterTimer = same ? true : !active;
      this.timerEndsAt = Date.now() + timerSeconds * 1000;
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.timerEndsAt = undefined;
        this.write(this.targetAfterTimer);
      }, timerSeconds * 1000);
    }
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
    if (!this.config.envForced.has("dns.blocking.active")) this.config.update([{ path: "dns.blocking.active", value: active }]);
  }
}
