#!/usr/bin/env bun
// Moat's command line: `serve` runs the appliance; the other commands act on its config and data.
import { resolve, join } from "node:path";
import { ConfigError, ConfigStore, withPasswordFile } from "./config/index.ts";
import { DbError } from "./db/index.ts";
import { hashPassword, randomBytes, verifyPassword } from "./auth/password.ts";
import { base32Encode, currentTotp, TOTP_DIGITS, TOTP_PERIOD } from "./auth/totp.ts";
import { startServices } from "./services.ts";
import { versionInfo } from "./core/version.ts";
import { teleporterCommand } from "./teleporter/cli.ts";
import { gravityCommand } from "./filter/gravity/cli.ts";
import { commandHelp, usage } from "./commands.ts";
import { checkConfigFile, prepareDataDir, StartError, startFromDefaults } from "./core/start-errors.ts";
import { updateCommand } from "./update/cli.ts";
import { updateContext } from "./update/index.ts";
import { UpdateRefused } from "./update/index.ts";
import { healthcheck } from "./core/healthcheck.ts";
import { serviceCommand } from "./host/service/cli.ts";
import { migrateCommand, type MigrateFlags } from "./migrate/cli.ts";

export interface CliOptions {
  command: string;
  args: string[];
  config?: string;
  dataDir?: string;
  dev: boolean;
  /** --init: a --config file that does not exist yet may be created */
  init: boolean;
  /** --defaults FILE: the settings a config file that does not exist yet starts with (the container's) */
  defaults?: string;
  /** --help/-h after a command: that command's help */
  help: boolean;
  /** --reboot (moat update only): reboot into the new version once it is installed */
  reboot: boolean;
  /** moat migrate's --merge, --replace, --dry-run, --with-history */
  migrate: MigrateFlags;
}

const MIGRATE_FLAGS: Record<string, keyof MigrateFlags> = {
  "--merge": "merge",
  "--replace": "replace",
  "--dry-run": "dryRun",
  "--with-history": "withHistory",
};

export function parseArgs(argv: string[]): CliOptions {
  const o: CliOptions = {
    command: "",
    args: [],
    dev: false,
    init: false,
    help: false,
    reboot: false,
    migrate: { merge: false, replace: false, dryRun: false, withHistory: false },
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new ConfigError(`${a} needs a value`);
      return v;
    };
    if (a === "--config") o.config = value();
    else if (a.startsWith("--config=")) o.config = a.slice(9);
    else if (a === "--data-dir") o.dataDir = value();
    else if (a.startsWith("--data-dir=")) o.dataDir = a.slice(11);
    else if (a === "--defaults") o.defaults = value();
    else if (a.startsWith("--defaults=")) o.defaults = a.slice(11);
    else if (a === "--dev") o.dev = true;
    else if (a === "--init") o.init = true;
    else if (a === "--reboot") o.reboot = true;
    else if (MIGRATE_FLAGS[a]) o.migrate[MIGRATE_FLAGS[a]] = true;
    else if (a === "-h" || a === "--help") o.help = true;
    else if (a === "-v" || a === "--version") o.command ||= "version";
    else if (a.startsWith("--")) throw new ConfigError(`unknown option ${a}`);
    else if (!o.command) o.command = a;
    else o.args.push(a);
  }
  if (o.reboot && o.command !== "update") throw new ConfigError("--reboot belongs to moat update");
  if (Object.values(o.migrate).some(Boolean) && o.command !== "migrate")
    throw new ConfigError("--merge, --replace, --dry-run and --with-history belong to moat migrate");
  return o;
}

/** The development profile's defaults: unprivileged ports so `npm start` works as a normal user. */
// DNS on 1053, not 5353: that is mDNS's port, which avahi holds on most Linux desktops. NTP has
// no port but 123 (clients ask nothing else), which a normal user cannot bind: off here.
export const DEV_PROFILE = {
  "webserver.port": "8080,8443s",
  "dns.port": 1053,
  "dns.tls.port": 8853,
  "ntp.ipv4.active": false,
  "ntp.ipv6.active": false,
};

export function resolvePaths(o: CliOptions) {
  const dataDir = resolve(o.dataDir ?? (o.dev ? ".moat-data" : "/etc/moat"));
  return {
    dataDir,
    configFile: resolve(o.config ?? join(dataDir, "pihole.toml")),
    gravityDb: join(dataDir, "gravity.db"),
    queryDb: join(dataDir, "pihole-FTL.db"),
  };
}

export function loadConfig(o: CliOptions, env: Record<string, string | undefined> = process.env): ConfigStore {
  const paths = resolvePaths(o);
  // The database paths shown under files.* are where this instance really keeps them.
  const where = {
    "files.database": paths.queryDb,
    "files.gravity": paths.gravityDb,
    "files.macvendor": join(paths.dataDir, "macvendor.db"),
  };
  return new ConfigStore({
    file: paths.configFile,
    env: withPasswordFile(env),
    profile: { ...where, ...(o.dev ? DEV_PROFILE : {}) },
    hashPassword,
    holdsPassword: (plain, hash) => verifyPassword(plain, hash) !== "incorrect",
  });
}

async function readStdin(): Promise<string> {
  const text = await new Response(Bun.stdin.stream()).text();
  return text.replace(/\r?\n$/, "");
}

/** Changes one setting in the config file; a running Moat applies it as soon as the file is written. */
function change(store: ConfigStore, path: string, value: unknown): void {
  const r = store.update([{ path, value }]);
  if (!r.ok) throw new ConfigError(`${r.problem.message}: ${r.problem.hint}`);
}

/** `moat totp [code|enable|disable]`: two-factor authentication of the API. */
function totpCommand(o: CliOptions): number {
  const sub = o.args[0] ?? "code";
  // the code comes from the settings in force (environment included); changes go to the file
  const store = sub === "code" ? loadConfig(o) : loadConfig(o, {});
  if (sub === "enable") {
    const secret = base32Encode(randomBytes(20));
    change(store, "webserver.api.totp_secret", secret);
    const account = encodeURIComponent(store.current.webserver.domain);
    console.log(
      `2FA enabled (every session ended). Add this secret to your authenticator app:\n  ${secret}\n  otpauth://totp/Moat%20API:${account}?secret=${secret}&issuer=Moat%20API&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD}\ncurrent code: ${currentTotp(secret)}`,
    );
    return 0;
  }
  if (sub === "disable") {
    change(store, "webserver.api.totp_secret", "");
    console.log("2FA disabled");
    return 0;
  }
  if (sub !== "code") throw new ConfigError(`unknown totp command "${sub}" (code, enable or disable)`);
  const code = currentTotp(store.current.webserver.api.totp_secret);
  if (code === null)
    throw new ConfigError("2FA is off (webserver.api.totp_secret is not set); turn it on with: moat totp enable");
  console.log(code);
  return 0;
}

/** The data directory and config file are usable (or refused in a sentence) before anything opens them. */
function preparePaths(o: CliOptions): void {
  const paths = resolvePaths(o);
  prepareDataDir(paths.dataDir);
  if (o.config !== undefined) checkConfigFile(paths.configFile, o.init);
  if (o.defaults !== undefined) startFromDefaults(paths.configFile, o.defaults);
}

async function main(argv: string[]): Promise<number> {
  const o = parseArgs(argv);
  if (o.help || o.command === "help") {
    const name = o.command !== "help" ? o.command : (o.args[0] ?? (o.help ? "help" : undefined));
    if (!name) {
      console.log(usage());
      return 0;
    }
    const text = commandHelp(name);
    if (text === null) {
      console.error(`moat: unknown command "${name}"\n\n${usage()}`);
      return 2;
    }
    console.log(text);
    return 0;
  }
  if (["serve", "password", "totp", "gravity", "teleporter", "update", "migrate"].includes(o.command)) preparePaths(o);
  switch (o.command) {
    case "serve": {
      const services = await startServices(resolvePaths(o), loadConfig(o));
      const stop = async (signal: string) => {
        console.error(`moat: ${signal}, stopping`);
        await services.stop();
        process.exit(0);
      };
      process.on("SIGINT", () => void stop("SIGINT"));
      process.on("SIGTERM", () => void stop("SIGTERM"));
      return -1; // keep running
    }
    case "password": {
      const store = loadConfig(o, {});
      const plain = o.args.length ? o.args.join(" ") : await readStdin();
      change(store, "webserver.api.password", plain);
      console.log(
        plain === "" ? `password removed from ${store.file}: the API is open` : `password set in ${store.file}`,
      );
      return 0;
    }
    case "totp":
      return totpCommand(o);
    case "gravity":
      return gravityCommand(resolvePaths(o), loadConfig(o));
    case "teleporter":
      return teleporterCommand(o.args, loadConfig(o), resolvePaths(o).dataDir);
    case "migrate":
      return migrateCommand(o.args, o.migrate, loadConfig(o, {}), resolvePaths(o).dataDir);
    case "update": {
      const ctx = updateContext(loadConfig(o).current, resolvePaths(o).dataDir);
      return updateCommand(o.args, ctx, versionInfo().version, o.reboot);
    }
    case "healthcheck":
      return healthcheck(loadConfig(o).current);
    case "service":
      return serviceCommand(o.args);
    case "version": {
      const v = versionInfo();
      console.log(`moat ${v.version} (${v.commit}, ${v.date}) on ${v.runtime.name} ${v.runtime.version}`);
      return 0;
    }
    case "":
      console.error(usage());
      return 2;
    default:
      console.error(`moat: unknown command "${o.command}"\n\n${usage()}`);
      return 2;
  }
}

if (import.meta.main) {
  try {
    const code = await main(process.argv.slice(2));
    if (code >= 0) process.exit(code);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof DbError || e instanceof StartError || e instanceof UpdateRefused) {
      console.error(`moat: ${e.message}`);
      process.exit(1);
    }
    console.error(`moat: ${(e as Error).message ?? String(e)}`);
    process.exit(1);
  }
}
