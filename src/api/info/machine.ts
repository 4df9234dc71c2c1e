// GET /api/info/system, /api/info/host and /api/info/sensors: the machine Moat runs on, from /proc
// and /sys (null where the machine has none).
import { Elysia, t, type Static } from "elysia";
import { documented } from "../docs/meta.ts";
import type { Context } from "../../core/runtime.ts";
import { hostInfo, sensorsInfo, systemInfo } from "../../host/system.ts";

const N = t.Union([t.Number(), t.Null()]);
const S = t.Union([t.String(), t.Null()]);
const Int = t.Integer();

export const SystemReply = t.Object({
  uptime: t.Integer({ description: "seconds since the machine booted" }),
  memory: t.Object({
    ram: t.Object({ total: Int, free: Int, used: Int, available: Int, "%used": t.Number() }, { description: "KiB" }),
    swap: t.Object({ total: Int, free: Int, used: Int, "%used": t.Number() }, { description: "KiB" }),
  }),
  procs: Int,
  cpu: t.Object({
    nprocs: Int,
    "%cpu": t.Number(),
    load: t.Object({ raw: t.Array(t.Number()), percent: t.Array(t.Number()) }),
  }),
  ftl: t.Object({ "%mem": t.Number(), "%cpu": t.Number() }, { description: "this process" }),
});

export const SensorsReply = t.Object({
  list: t.Array(
    t.Object({
      name: S,
      path: t.String(),
      source: t.String(),
      temps: t.Array(t.Object({ name: S, value: t.Number(), max: N, crit: N, sensor: t.String() })),
    }),
  ),
  cpu_temp: t.Union([t.Number(), t.Null()], { description: "null when no sensor can be told to be the CPU's" }),
  hot_limit: t.Number({ description: "webserver.api.temp.limit in the configured unit" }),
  unit: t.String(),
});

const HostReply = t.Object({
  uname: t.Object({
    domainname: t.String(),
    machine: t.String(),
    nodename: t.String(),
    release: t.String(),
    sysname: t.String(),
    version: t.String(),
  }),
  model: S,
  dmi: t.Object({
    bios: t.Object({ vendor: S }),
    board: t.Object({ name: S, vendor: S, version: S }),
    product: t.Object({ name: S, family: S, version: S }),
    sys: t.Object({ vendor: S }),
  }),
});

const SystemInfoReply = t.Object({ system: SystemReply });

export function machineInfoRoutes(rt: Context) {
  return new Elysia({ name: "info-machine" })
    .get(
      "/info/system",
      (): Static<typeof SystemInfoReply> => ({ system: systemInfo(rt.config.current.misc.normalizeCPU) }),
      {
        // "%used": for the reference only (docs/meta.ts, RouteDocs.reply)
        detail: documented(
          { tags: ["Info"], summary: "Uptime, memory, CPU and load of the machine" },
          { reply: SystemInfoReply },
        ),
      },
    )
    .get("/info/host", () => ({ host: hostInfo() }), {
      response: t.Object({ host: HostReply }),
      detail: { tags: ["Info"], summary: "Kernel, model and DMI data of the machine" },
    })
    .get(
      "/info/sensors",
      () => ({
        sensors: sensorsInfo(rt.config.current.webserver.api.temp.unit, rt.config.current.webserver.api.temp.limit),
      }),
      {
        response: t.Object({ sensors: SensorsReply }),
        detail: { tags: ["Info"], summary: "Temperature sensors" },
      },
    );
}
