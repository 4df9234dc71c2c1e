// Moat's logs: every line goes to stderr (journald on the appliance) and into a bounded in-memory
// FIFO per log, which /api/logs/* tails with nextID.

export type LogName = "ftl" | "dnsmasq" | "webserver";
export type Level = "info" | "warn" | "error";

export interface LogLine {
  id: number;
  timestamp: number;
  message: string;
  prio: string | null;
}

const LOG_SIZE = 515;

export class LogBuffer {
  private lines: LogLine[] = [];
  private next = 0;

  push(message: string, prio: string | null): void {
    this.lines.push({ id: this.next++, timestamp: Date.now() / 1000, message, prio });
    if (this.lines.length > LOG_SIZE) this.lines.shift();
  }

  /** Lines with id >= from, and the id the next call should ask for. */
  since(from: number): { lines: LogLine[]; nextID: number } {
    return { lines: this.lines.filter((l) => l.id >= from), nextID: this.next };
  }
}

export class Logs {
  readonly buffers: Record<LogName, LogBuffer> = {
    ftl: new LogBuffer(),
    dnsmasq: new LogBuffer(),
    webserver: new LogBuffer(),
  };
  quiet = false;

  write(name: LogName, level: Level, message: string): void {
    const prio = level === "info" ? "INFO" : level === "warn" ? "WARNING" : "ERROR";
    this.buffers[name].push(message, prio);
    if (!this.quiet || level !== "info") console.error(`[${new Date().toISOString()}] ${prio} ${message}`);
  }
}
