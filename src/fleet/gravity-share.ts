// Gravity once for the whole fleet. The node holding the lease (SET NX PX in Redis, renewed every
// second, free for another node when its holder stops renewing) runs the scheduled updates; any
// node's finished run (scheduled or asked for through its API) is published as one package: the
// gravity rows with their rowids, the lists' counts, info.updated and the run's token, and the
// filter snapshot file written with them, gzipped and checked by SHA-256. The other nodes take
// the package as it is: they download and parse nothing, and because the rows, rowids and token
// match, DNS loads the finished snapshot file instead of building the filter again
// (src/filter/snapshot-file.ts: snapshotKey). The newest run (info.updated) wins.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import type { Runtime } from "../core/runtime.ts";
import { snapshotFileOf } from "../filter/snapshot-file.ts";
import { gravityInfo, readGravityRows, replaceGravityRows } from "../filter/gravity/tables.ts";
import { adlistCounts, adlistIds, setAdlistCounts, type AdlistCounts } from "../lists/adlists.ts";
import type { RedisLink } from "./redis-link.ts";

const LEASE_MS = 10_000;

interface Package {
  updated: string;
  info: Record<string, string>;
  adlists: AdlistCounts[];
  gravity: Array<[number, string, number]>;
  antigravity: Array<[number, string, number]>;
  /** the filter snapshot file (base64), or null when the builder had none */
  snapshot: string | null;
}

export class GravityShare {
  /** info.updated of the gravity content this node knows the fleet has (published or applied) */
  private known: string | null;
  private pending = false;
  leader = false;
  version = 0;
  error: string | null = null;

  constructor(
    private readonly rt: Pick<Runtime, "gravityDb" | "events" | "log" | "paths">,
    private readonly link: RedisLink,
    private readonly node: string,
  ) {
    this.known = this.localUpdated();
  }

  private localUpdated(): string | null {
    return gravityInfo(this.rt.gravityDb, "updated");
  }

  /** May this node start a scheduled gravity run? The lease holder does; a node cut off from the fleet acts alone. */
  mayRunSchedule(): boolean {
    return this.leader || !this.link.connected;
  }

  /** A gravity run finished here (or gravity.db changed under us): share it unless it came from the fleet. */
  localRun(): void {
    const u = this.localUpdated();
    if (u === null || u === this.known) return;
    this.known = u;
    this.pending = true;
    void this.tick();
  }

  /** Renews the lease, publishes a pending run, takes a newer one. Called every second and on news. */
  async tick(): Promise<void> {
    try {
      this.leader = await this.link.lease("gravity", this.node, LEASE_MS);
      if (this.pending) {
        const head = await this.link.gravityHead();
        if (!head || Number(head.updated) < Number(this.known)) {
          this.version = await this.link.publishGravity(this.node, this.known ?? "", this.pack());
          this.rt.log("info", `fleet: gravity of ${this.known} shared as version ${this.version}`);
        }
        this.pending = false;
      }
      await this.catchUp();
      this.error = null;
    } catch (e) {
      this.error = (e as Error).message;
    }
  }

  private async catchUp(): Promise<void> {
    const head = await this.link.gravityHead();
    if (!head || head.updated === this.known || Number(head.updated) <= Number(this.localUpdated() ?? 0)) {
      if (head) this.version = Math.max(this.version, head.version);
      return;
    }
    const bytes = await this.link.fetchGravity();
    if (!bytes) return;
    const pkg = JSON.parse(new TextDecoder().decode(Bun.gunzipSync(bytes.data))) as Package;
    // the lists the rows belong to arrive through the lists kind; wait for them
    const ids = adlistIds(this.rt.gravityDb);
    if (pkg.adlists.some(([id]) => !ids.has(id)))
      throw new Error(`gravity version ${bytes.version}: waiting for its lists`);
    this.apply(pkg);
    this.known = pkg.updated;
    this.version = bytes.version;
    this.rt.log(
      "info",
      `fleet: gravity version ${bytes.version} from ${bytes.node} taken (${pkg.gravity.length} rows, nothing downloaded)`,
    );
    await this.rt.events.emit("gravity-updated", { ok: true });
  }

  private pack(): Uint8Array {
    const db = this.rt.gravityDb;
    const rows = readGravityRows(db);
    const file = snapshotFileOf(this.rt.paths.gravityDb);
    const pkg: Package = {
      updated: rows.info.updated ?? "",
      ...rows,
      adlists: adlistCounts(db),
      snapshot: existsSync(file) ? readFileSync(file).toString("base64") : null,
    };
    return Bun.gzipSync(new TextEncoder().encode(JSON.stringify(pkg)));
  }

  private apply(pkg: Package): void {
    const db = this.rt.gravityDb;
    // the snapshot file first: until the rows below commit, its key does not match and is ignored
    if (pkg.snapshot !== null) {
      const file = snapshotFileOf(this.rt.paths.gravityDb);
      writeFileSync(`${file}.fleet`, Buffer.from(pkg.snapshot, "base64"));
      renameSync(`${file}.fleet`, file);
    }
    db.transaction(() => {
      replaceGravityRows(db, pkg);
      setAdlistCounts(db, pkg.adlists);
    })();
  }
}
