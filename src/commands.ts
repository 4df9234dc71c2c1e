// The command line's commands and options in one table: `moat --help`, `moat <command> --help` and the
// README's command list (checked by test/cli/help.test.ts) are all written from it.

export interface CommandDoc {
  name: string;
  /** what follows the name, e.g. "export|import FILE" */
  args: string;
  /** one line for the list of commands */
  summary: string;
  /** the paragraph `moat <command> --help` adds */
  details: string;
}

export const COMMANDS: readonly CommandDoc[] = [
  {
    name: "serve",
    args: "",
    summary: "run DNS and the API",
    details:
      "Runs the DNS server and the API until stopped (SIGINT/SIGTERM). It prints one line per listener when\n" +
      "ready, and one sentence and a non-zero exit when it cannot start. A running server applies changes to\n" +
      "the config file as soon as they are saved.",
  },
  {
    name: "gravity",
    args: "",
    summary: "download the subscribed lists and rebuild the filter",
    details:
      "Downloads every enabled list, stores its domains in gravity.db and builds the filter snapshot, with\n" +
      "progress on stdout. A running server picks up the new snapshot.",
  },
  {
    name: "password",
    args: "[PASS]",
    summary: "set the API password (stdin when absent; empty removes it)",
    details:
      "Stores the password's hash in the config file; a running server applies it at once and ends every\n" +
      "session. Without PASS the password is read from stdin (`echo 'pass' | moat password`).",
  },
  {
    name: "totp",
    args: "[enable|disable]",
    summary: "print the current 2FA code; enable makes a new secret, disable turns 2FA off",
    details:
      "Without an argument: prints the current code of webserver.api.totp_secret. enable: makes a new\n" +
      "secret and prints it with its otpauth:// URL for an authenticator app. disable: removes the secret.",
  },
  {
    name: "teleporter",
    args: "export|import FILE",
    summary: "write a backup zip, or restore one",
    details:
      "export FILE: writes a backup in Pi-hole's Teleporter layout (config, gravity.db, DHCP leases).\n" +
      "import FILE: restores one; stop Moat first.",
  },
  {
    name: "migrate",
    args: "pihole [DIR|ARCHIVE] | adguardhome FILE",
    summary: "carry a Pi-hole or AdGuard Home install's settings, lists, clients and history into Moat",
    details:
      "pihole [DIR|ARCHIVE]: a Pi-hole v6 or v5 directory (default /etc/pihole) or a Teleporter archive of either\n" +
      "(.zip, .tar.gz), query history included. adguardhome FILE: AdGuardHome.yaml (schema versions 24 to 34),\n" +
      "with data/leases.json beside it. Prints what it carried and, one line each, what it could not and why.\n" +
      "A target that already has data is refused unless --merge (add to it) or --replace (replace its settings\n" +
      "and lists) is given; it is backed up first (moat-before-migration-*.zip in the data directory).\n" +
      "--dry-run: the report only, nothing changed. --with-history: also AdGuard Home's data/querylog.json.\n" +
      "Stop Moat first, or use the API (POST /api/action/migrate) while it runs.",
  },
  {
    name: "update",
    args: "[FILE|URL] [--reboot]",
    summary: "install a signed firmware update into the other slot (no argument: the update status)",
    details:
      "Checks the bundle (signed with the project's key, whole, built for this system), then installs it into\n" +
      "the slot that is not running, with progress on stdout; the next reboot tries it once and keeps it only\n" +
      "when Moat comes up healthy (docs/updates.md). A URL must be https://; it is downloaded into the data\n" +
      "directory (at most update.maxDownload MiB). Without an argument: the running version, the other slot's\n" +
      "and the last update's result. On a machine without RAUC: updates are available on the Moat image only.\n" +
      "--reboot: once installed, reboot into it (through moat-reboot.path on the image, as the API's reboot).",
  },
  {
    name: "healthcheck",
    args: "",
    summary: "ask the running server one DNS question and one API request (exit 0 when both answer)",
    details:
      "Sends a DNS query for localhost to 127.0.0.1 on dns.port and asks the API on the first webserver.port\n" +
      "entry, each within 3 s, and prints one line: healthy, or what did not answer (exit 1). The container\n" +
      "image's HEALTHCHECK runs it.",
  },
  {
    name: "service",
    args: "install|uninstall|status",
    summary: "run the downloaded binary as a systemd service (also: ports, resolved-stub off|on)",
    details:
      "install [DIR]: checks that ports 53 (UDP, TCP) and 80 are free (naming what holds them), copies this binary\n" +
      "to DIR (default /usr/local/bin), creates the user moat and /etc/moat, writes moat.service (the Pi image's and\n" +
      "the Debian package's unit) and starts it. uninstall: stops and removes the service and the binary; the\n" +
      "settings in /etc/moat stay. status: where it is installed, whether it runs, who holds its ports. ports: who\n" +
      "holds them (exit 1 when another program does). resolved-stub off: turns off systemd-resolved's stub\n" +
      "listener, which holds port 53, and points /etc/resolv.conf at its upstream servers; on: undoes it.\n" +
      "Root only, except status and ports. Amd64 and arm64 only: a 32-bit system (armhf) cannot run Bun.",
  },
  {
    name: "version",
    args: "",
    summary: "print the version (also --version, -v)",
    details: "Prints the version, the commit and build date, and the runtime.",
  },
  {
    name: "help",
    args: "[COMMAND]",
    summary: "print this help, or a command's (also --help, -h)",
    details: "Prints the list of commands, or what COMMAND does and its options.",
  },
];

/** The options every command that uses the data directory takes. */
const OPTIONS = `options:
  --dev               development profile: data in ./.moat-data, DNS on port 1053, HTTP on 8080
  --data-dir DIR      where gravity.db, pihole-FTL.db and the config live (default: /etc/moat)
  --config FILE       the config file (default: <data-dir>/pihole.toml); it must exist unless --init
  --init              create the file given by --config if it does not exist yet
  --defaults FILE     a config file that does not exist yet starts as a copy of FILE (the container's)`;

/** Commands that take no data directory, hence no options. */
const PLAIN = new Set(["version", "help", "service"]);

const synopsis = (c: CommandDoc) => `moat ${c.name}${c.args ? ` ${c.args}` : ""}`;

/** The README's block: one line per command. */
export function commandList(): string {
  const width = Math.max(...COMMANDS.map((c) => synopsis(c).length)) + 2;
  return COMMANDS.map((c) => synopsis(c).padEnd(width) + c.summary).join("\n");
}

export function usage(): string {
  return `usage: moat <command> [options]\n\n${commandList()}\n\n${OPTIONS}\n\n\`moat <command> --help\` explains a command.`;
}

export function commandHelp(name: string): string | null {
  const c = COMMANDS.find((x) => x.name === name);
  if (!c) return null;
  return `usage: ${synopsis(c)}${PLAIN.has(c.name) ? "" : " [options]"}\n\n${c.summary}.\n\n${c.details}${PLAIN.has(c.name) ? "" : `\n\n${OPTIONS}`}`;
}
