// The lease database: in memory for the server, on disk as `<data-dir>/dhcp.leases` in dnsmasq's
// format (`<expiry epoch> <mac> <ip> <hostname|*> <client-id|*>`, expiry 0 = never), which is what
// Pi-hole's Teleporter carries. Changes are written to a temporary file, synced and renamed over
// the old one, so a power cut leaves either the old or the new database, never half. Writes are
// grouped: the changes made while one write is pending share it, and `committed()` resolves once
// they are on disk (the server acknowledges a lease only then, RFC 2131 §4.3.2).
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { ipToNumber, numberToIp } from "./packet.ts";

/** Where the DHCP server keeps its leases; a Teleporter backup carries the file as it is. */
export const leasesFile = (dataDir: string) => join(dataDir, "dhcp.leases");

export interface Lease {
  ip: number;
  mac: string;
  /** "*" when the client sent none */
  hostname: string;
  /** "*" when the client sent none */
  clientId: string;
  /** unix seconds; 0 = never */
  expires: number;
}

const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i;

function parseLeaseFile(text: string): Lease[] {
  const out: Lease[] = [];
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4 || !/^\d+$/.test(f[0]!) || !MAC.test(f[1]!) || isIP(f[2]!) !== 4) continue; // DUID lines, IPv6 leases, junk
    out.push({
      expires: Number(f[0]),
      mac: f[1]!.toLowerCase(),
      ip: ipToNumber(f[2]!),
      hostname: f[3]!,
      clientId: f[4] ?? "*",
    });
  }
  return out;
}

function formatLease(l: Lease): string {
  return `${l.expires} ${l.mac} ${numberToIp(l.ip)} ${l.hostname} ${l.clientId}`;
}

export class LeaseStore {
  private byIp = new Map<number, Lease>();
  private pending: Promise<void> | null = null;
  /** called after every change (DNS names, counters) */
  onChange: () => void = () => {};

  constructor(private readonly file: string) {}

  /** Reads the file again (start-up, or a restored backup); a missing file is an empty database. */
  load(): void {
    let text = "";
    try {
      text = readFileSync(this.file, "utf8");
    } catch {
      // no file yet
    }
    this.byIp.clear();
    for (const l of parseLeaseFile(text)) this.byIp.set(l.ip, l);
    this.onChange();
  }

  all(now = nowSecs()): Lease[] {
    return [...this.byIp.values()].filter((l) => !expired(l, now)).sort((a, b) => a.ip - b.ip);
  }

  get(ip: number): Lease | undefined {
    return this.byIp.get(ip);
  }

  /** The client's current lease (by client id when it sent one, else by MAC). */
  findClient(mac: string, clientId: string): Lease | undefined {
    for (const l of this.byIp.values()) {
      if (clientId !== "*" && l.clientId !== "*" ? l.clientId === clientId : l.mac === mac) return l;
    }
    return undefined;
  }

  /** Grants or extends a lease, replacing any other lease the client held. */
  put(lease: Lease): void {
    const old = this.findClient(lease.mac, lease.clientId);
    if (old && old.ip !== lease.ip) this.byIp.delete(old.ip);
    this.byIp.set(lease.ip, lease);
    this.commit();
  }

  remove(ip: number): boolean {
    if (!this.byIp.delete(ip)) return false;
    this.commit();
    return true;
  }

  /** Drops expired leases; returns how many. */
  prune(now = nowSecs()): number {
    let n = 0;
    for (const [ip, l] of this.byIp) if (expired(l, now)) this.byIp.delete(ip), n++;
    if (n) this.commit();
    return n;
  }

  /** Resolves when every change made so far is on disk. */
  committed(): Promise<void> {
    return this.pending ?? Promise.resolve();
  }

  private commit(): void {
    this.onChange();
    this.pending ??= new Promise<void>((resolve) =>
      setTimeout(() => {
        this.pending = null;
        try {
          this.write();
        } finally {
          resolve();
        }
      }, 0),
    );
  }

  private write(): void {
    const text = [...this.byIp.values()].map(formatLease).join("\n");
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, "w", 0o644);
    try {
      writeSync(fd, text ? `${text}\n` : "");
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }
}

export const nowSecs = () => Math.floor(Date.now() / 1000);
export const expired = (l: Lease, now = nowSecs()) => l.expires !== 0 && l.expires <= now;
