// dns.access.allowed / dns.access.disallowed: who may use this DNS server at all (AdGuard Home's
// allowed_clients and disallowed_clients). Judged first, before any handler, from a matcher made once
// per change of the lists (they are the config's immutable arrays), so a query costs one Map lookup.
// A refused client gets REFUSED (RFC 1035 §4.1.1: "refuses to perform the specified operation for policy
// reasons") where AdGuard Home drops the query: a dropped query makes the device wait out its timeout and
// retry, a REFUSED one sends it to its next server at once and tells the person at it why.
import { inCidr, ipTo16, parseCidr, type Cidr } from "../net/ip.ts";

interface Lists {
  readonly allowed: readonly string[];
  readonly disallowed: readonly string[];
}

class Side {
  readonly nets: Cidr[] = [];
  readonly ids = new Set<string>();
  constructor(entries: readonly string[]) {
    for (const e of entries) {
      const c = parseCidr(e);
      if (c) this.nets.push(c);
      else this.ids.add(e);
    }
  }
  hasAddress(ip: Uint8Array): boolean {
    return this.nets.some((c) => inCidr(ip, c));
  }
}

export class ClientAccess {
  private lists: Lists | null = null;
  private allowed: Side | null = null;
  private disallowed: Side | null = null;
  /** the verdict per client address (a network has few), with and without the allowed list, cleared when the lists change */
  private verdicts = new Map<string, boolean>();
  private verdictsById = new Map<string, boolean>();

  constructor(private readonly current: () => Lists) {}

  /** true: the query from `client` (with its DoT/DoH client ID, if any) is refused */
  refuses(client: string, clientId: string | null): boolean {
    const lists = this.current();
    if (lists.allowed.length === 0 && lists.disallowed.length === 0) return false;
    if (lists !== this.lists) this.rebuild(lists);
    const allowed = this.allowed;
    const disallowed = this.disallowed;
    if (clientId !== null) {
      if (disallowed?.ids.has(clientId)) return true;
      if (allowed?.ids.has(clientId)) return this.byAddress(client, false);
    }
    return this.byAddress(client, allowed !== null);
  }

  /** `mustBeListed`: the allowed list is not empty and the client ID did not name the client in it */
  private byAddress(client: string, mustBeListed: boolean): boolean {
    const memo = mustBeListed ? this.verdicts : this.verdictsById;
    let v = memo.get(client);
    if (v === undefined) {
      const ip = ipTo16(client);
      v =
        (ip !== null && this.disallowed?.hasAddress(ip) === true) ||
        (mustBeListed && (ip === null || !this.allowed!.hasAddress(ip)));
      if (memo.size >= 4096) memo.clear();
      memo.set(client, v);
    }
    return v;
  }

  private rebuild(lists: Lists): void {
    this.lists = lists;
    this.allowed = lists.allowed.length ? new Side(lists.allowed) : null;
    this.disallowed = lists.disallowed.length ? new Side(lists.disallowed) : null;
    this.verdicts.clear();
    this.verdictsById.clear();
  }
}
