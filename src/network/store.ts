// The network tables bound to the main thread's connection to pihole-FTL.db (src/db/bind.ts), for the
// API: it holds this owner, not the handle.
import type { Database } from "bun:sqlite";
import { bindDb } from "../db/bind.ts";
import { writeWithoutWaiting } from "../db/no-wait.ts";
import {
  devicesWithAddresses,
  forgetAllDevices,
  forgetDevice,
  knownDevice,
  listDevices,
  recordDevices,
} from "./devices.ts";
import { addressName, addressNames, hwaddrName } from "./names.ts";

export function networkStore(db: Database) {
  const bound = bindDb(db, {
    listDevices,
    devicesWithAddresses,
    knownDevice,
    forgetDevice,
    forgetAllDevices,
    addressName,
    addressNames,
    hwaddrName,
  });
  return {
    ...bound,
    /** `recordDevices` unless another thread writes the database: false then (this thread answers DNS) */
    recordDevicesWithoutWaiting: (
      ...args: Parameters<typeof recordDevices> extends [Database, ...infer A] ? A : never
    ) => writeWithoutWaiting(db, () => recordDevices(db, ...args)),
  };
}

export type NetworkStore = ReturnType<typeof networkStore>;
