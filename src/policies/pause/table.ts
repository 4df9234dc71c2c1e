// Paused clients ("pause the internet on this tablet for an hour"): which entry, if any, pauses a client,
// matched as client entries are (address, subnet, MAC, host name; a DoT/DoH client ID by name), and until
// when. Built once per snapshot; a pause ends by itself when its time passes, as the DNS thread compares
// the end with the clock, so no rebuild is needed for it.
import { ClientResolver, type ClientResolverOptions } from "../../filter/clients.ts";

/** A paused client entry (matched as client entries are); until: ms since the epoch, 0 = until resumed. */
export interface PausedEntry {
  ip: string;
  until: number;
}

const NONE = new Uint32Array(1);

export class PauseTable {
  private readonly resolver: ClientResolver;
  /** entry i's end (ms since the epoch, 0: until resumed) at index i + 1 */
  private readonly ends: number[] = [0];

  constructor(entries: readonly PausedEntry[], opts: ClientResolverOptions = {}) {
    // each entry's "group mask" is its own index + 1, so the resolver's matching rules pick the entry
    const rows = entries.map((e, i) => {
      this.ends.push(e.until);
      return { id: i, ip: e.ip, mask: [i + 1] };
    });
    this.resolver = new ClientResolver(rows, NONE, opts);
  }

  /** Whether the client (its address, or its DoT/DoH client ID) is paused now (the clock is read only for a paused one). */
  paused(ip: string, clientId: string | null): boolean {
    const i = (clientId === null ? this.resolver.groupsOf(ip) : this.resolver.groupsOfId(clientId, ip))[0]!;
    if (i === 0) return false;
    const end = this.ends[i]!;
    return end === 0 || Date.now() < end;
  }

  forget(ip: string): void {
    this.resolver.forget(ip);
  }
}
