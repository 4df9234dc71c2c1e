// The server's side of gravity: runs `moat gravity` as a child process, lets any number of HTTP
// replies follow one run's progress (a second request joins the running update instead of starting
// another), runs it on a schedule, and tells the DNS engine when gravity.db changed, whoever changed
// it (the server, the CLI, an imported database): info.updated is polled once a second as FTL does.
import type { Runtime } from "../../core/runtime.ts";
import { moatCommand } from "../../core/self-command.ts";
import { dropBuildTables } from "./build.ts";
import { PARENT_PIPE_ENV } from "./cli.ts";
import { acquireGravityLock } from "./lock.ts";
import { gravityInfo, listRuleCounts } from "./tables.ts";

export class GravityRun {
  readonly lines: string[] = [];
  private listeners = new Set<(line: string | null) => void>();
  done = false;
  exitCode: number | null = null;

  push(line: string | null): void {
    if (line === null) this.done = true;
    else this.lines.push(line);
    for (const l of this.listeners) l(line);
  }

  /** a text stream of the whole run so far and then live, ending with the run */
  stream(): ReadableStream<Uint8Array> {
    const enc = new TextEncoder();
    let listener: ((line: string | null) => void) | undefined;
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        for (const l of this.lines) controller.enqueue(enc.encode(`${l}\n`));
        if (this.done) return controller.close();
        listener = (line) => {
          try {
            if (line === null) controller.close();
            else controller.enqueue(enc.encode(`${line}\n`));
          } catch {
            // the client went away
          }
        };
        this.listeners.add(listener);
      },
      cancel: () => {
        if (listener) this.listeners.delete(listener);
      },
    });
  }
}

interface GravityDeps extends Pick<Runtime, "config" | "events" | "gravityDb" | "log" | "paths"> {
  /** the unique domains on the block lists in force (for the closing log line); undefined while DNS is not up */
  gravitySize(): number | undefined;
  /** false while another fleet node holds the gravity lease: it runs the schedule, this node takes its result */
  mayRunSchedule(): boolean;
}

const readUpdated = (rt: Pick<Runtime, "gravityDb">): string | null => gravityInfo(rt.gravityDb, "updated");

export class GravityService {
  private current: GravityRun | null = null;
  private lastUpdated: string | null;
  private timers: Array<ReturnType<typeof setInterval>> = [];
  private readonly startedAt = Date.now();

  constructor(private readonly rt: GravityDeps) {
    this.lastUpdated = readUpdated(rt);
    // a run killed with its server leaves its build tables behind: rows nobody reads, taking disk
    // until the next run (a run going on in another process holds the lock, and keeps its tables)
    let release: (() => void) | null = null;
    try {
      release = acquireGravityLock(rt.paths.dataDir);
    } catch {
      // a data directory Moat cannot write to: the next run says so, not the start
    }
    if (release)
      try {
        dropBuildTables(rt.gravityDb);
      } finally {
        release();
      }
  }

  get running(): boolean {
    return this.current !== null && !this.current.done;
  }

  /** per list: the AdGuard-syntax rules the last run applies and those it does not, with examples */
  listRules(): ReturnType<typeof listRuleCounts> {
    return listRuleCounts(this.rt.gravityDb);
  }

  /** a value the last run stored in gravity.db's info table (null before the first run) */
  info(property: Parameters<typeof gravityInfo>[1]): string | null {
    return gravityInfo(this.rt.gravityDb, property);
  }

  /** starts a run, or returns the one in progress */
  start(reason: string): GravityRun {
    if (this.current && !this.current.done) return this.current;
    const run = new GravityRun();
    this.current = run;
    this.rt.log("info", `gravity update started (${reason})`);
    const p = this.rt.paths;
    // stdin is a pipe this process never writes: it closes when the server dies, and the child stops
    const proc = Bun.spawn([...moatCommand(), "gravity", "--data-dir", p.dataDir, "--config", p.configFile, "--init"], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: {
        ...(process.env as Record<string, string>),
        [PARENT_PIPE_ENV]: String(process.pid),
        // SQLite's temporary files (the index build sorts gravity's rows through them, as large as the
        // table) in the data directory, the disk kept for Moat's data, not /var/tmp or /tmp: a tmpfs
        // there would hold them in memory, beside the build, in the same memory limit
        SQLITE_TMPDIR: p.dataDir,
      },
    });
    const pump = async (s: ReadableStream<Uint8Array>) => {
      const dec = new TextDecoder();
      let buf = "";
      for await (const chunk of s) {
        buf += dec.decode(chunk, { stream: true });
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          run.push(buf.slice(0, i));
          buf = buf.slice(i + 1);
        }
      }
      if (buf) run.push(buf);
    };
    void Promise.all([pump(proc.stdout), pump(proc.stderr), proc.exited]).then(async ([, , code]) => {
      void proc.stdin.end();
      run.exitCode = code;
      // the reply ends once the new lists answer queries
      await this.afterRun(code === 0);
      run.push(null);
    });
    return run;
  }

  private async afterRun(ok: boolean): Promise<void> {
    this.lastUpdated = readUpdated(this.rt);
    await this.rt.events.emit("gravity-updated", { ok });
    // said once the filter holds the new lists, with the number the API shows
    const unique = this.rt.gravitySize();
    if (!ok) this.rt.log("warn", "gravity update failed, previous lists kept");
    else
      this.rt.log(
        "info",
        `gravity update finished${unique === undefined ? "" : `: ${unique} unique domains on block lists`}`,
      );
  }

  /** due when the last run is older than gravity.updateInterval (never run: 5 minutes after start) */
  private due(now: number): boolean {
    const interval = this.rt.config.current.gravity.updateInterval;
    if (interval === 0 || this.running) return false;
    if (!this.rt.mayRunSchedule()) return false;
    const last = Number(this.lastUpdated ?? 0) * 1000;
    const from = last > 0 ? last : this.startedAt + 300_000 - interval * 1000;
    return now >= from + interval * 1000;
  }

  startSchedule(): void {
    // one cheap check a second: notice gravity.db changed by someone else, and start a due run (the
    // interval can be changed live, down to seconds, so a coarser tick would delay short intervals)
    this.timers.push(
      setInterval(() => {
        const u = readUpdated(this.rt);
        if (u !== this.lastUpdated && !this.running) {
          this.lastUpdated = u;
          this.rt.events.emit("gravity-updated", { ok: true });
        }
        if (this.due(Date.now())) this.start("schedule");
      }, 1000),
    );
  }

  stop(): void {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }
}
