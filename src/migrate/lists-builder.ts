// The groups, clients, domains and lists of a source that has no gravity.db (AdGuard Home, a Pi-hole
// v5 Teleporter archive), as the management tables' map (src/lists/replicated.ts's keys), with the
// family controls of each group. Group 0 is the Default group, as in Pi-hole.

type Row = Record<string, unknown>;
export type DomainType = 0 | 1 | 2 | 3; // allow exact, deny exact, allow regex, deny regex (Pi-hole's numbers)
/** What a source says of a domain or list entry besides its own fields; `id`: the source's, kept. */
interface EntryOptions {
  enabled?: boolean;
  comment?: string | null;
  groups?: readonly number[];
  id?: number;
}

export class ListsBuilder {
  readonly map: Record<string, unknown> = {};
  private readonly ids = { group: 1, client: 1, domainlist: 1, adlist: 1 };
  private readonly natural = new Map<string, number>();
  private readonly now = Math.floor(Date.now() / 1000);

  constructor() {
    this.map["group/0"] = { enabled: 1, name: "Default", description: "The default group", date_added: this.now };
  }

  private row(table: keyof ListsBuilder["ids"], key: string, row: Row, id?: number): { id: number; fresh: boolean } {
    const known = this.natural.get(`${table}|${key}`);
    if (known !== undefined) return { id: known, fresh: false };
    const n = id ?? this.ids[table];
    this.ids[table] = Math.max(this.ids[table], n + 1);
    this.natural.set(`${table}|${key}`, n);
    this.map[`${table}/${n}`] = { date_added: this.now, ...row };
    return { id: n, fresh: true };
  }

  private link(table: "client" | "domainlist" | "adlist", id: number, groups: readonly number[] | undefined): void {
    for (const g of groups ?? [0]) this.map[`${table}_by_group/${id}/${g}`] = 1;
  }

  /** The group of this name (made when new); its id. */
  group(name: string, description: string | null = null, enabled = true, id?: number): number {
    if (name === "Default") return 0;
    return this.row("group", name, { enabled: enabled ? 1 : 0, name, description }, id).id;
  }

  client(ip: string, comment: string | null, groups?: readonly number[], id?: number): number {
    const r = this.row("client", ip, { ip, comment }, id);
    this.link("client", r.id, groups);
    return r.id;
  }

  domain(type: DomainType, domain: string, o: EntryOptions = {}): boolean {
    return this.entry("domainlist", `${type}|${domain}`, { type, domain }, o);
  }

  /** type 0: a block list, 1: an allow list */
  adlist(address: string, type: 0 | 1, o: EntryOptions = {}): boolean {
    return this.entry("adlist", `${type}|${address}`, { address, type }, o);
  }

  /** A domain or a list entry, linked to its groups when it is new. */
  private entry(
    table: "domainlist" | "adlist",
    natural: string,
    own: Record<string, string | number>,
    o: EntryOptions,
  ): boolean {
    const r = this.row(
      table,
      natural,
      { ...own, enabled: o.enabled === false ? 0 : 1, comment: o.comment ?? null },
      o.id,
    );
    if (r.fresh) this.link(table, r.id, o.groups);
    return r.fresh;
  }

  /** Links rows made with explicit ids to a group (a Pi-hole v5 archive's *_by_group tables). */
  linkTo(table: "client" | "domainlist" | "adlist", id: number, group: number): void {
    this.map[`${table}_by_group/${id}/${group}`] = 1;
  }

  /** Drops the Default-group link a row got when it was made (its own links follow). */
  unlinkDefault(table: "client" | "domainlist" | "adlist", id: number): void {
    delete this.map[`${table}_by_group/${id}/0`];
  }

  services(group: number, ids: readonly string[]): void {
    for (const s of ids) this.map[`moat_group_service/${group}/${s}`] = 1;
  }

  safeSearch(group: number, engines: readonly string[]): void {
    for (const e of engines) this.map[`moat_group_safesearch/${group}/${e}`] = 1;
  }

  schedule(group: number, windows: unknown[], services: readonly string[]): void {
    this.map[`moat_group_schedule/${group}`] = {
      windows: JSON.stringify(windows),
      services: JSON.stringify(services),
      lists: "[]",
      everything: 0,
    };
  }

  upstreams(group: number, upstreams: readonly string[]): void {
    this.map[`moat_group_upstream/${group}`] = { upstreams: JSON.stringify(upstreams) };
  }
}
