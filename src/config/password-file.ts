// WEBPASSWORD_FILE, as Pi-hole's container image reads it: a file holding the API password (a Docker or
// Compose secret), used when FTLCONF_webserver_api_password is unset or empty. A bare name is a secret's
// name, found in /run/secrets/ where Docker and podman mount secrets.
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ConfigError, envLeaf } from "./store.ts";

const SECRETS_DIR = "/run/secrets";

/** The environment with the password taken from WEBPASSWORD_FILE when that applies; the same object otherwise. */
export function withPasswordFile(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const file = env.WEBPASSWORD_FILE;
  if (!file) return env;
  const set = Object.keys(env).some((n) => env[n] && envLeaf(n)?.path === "webserver.api.password");
  if (set) return env;
  const path = isAbsolute(file) ? file : join(SECRETS_DIR, file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new ConfigError(
      `WEBPASSWORD_FILE names ${path}, which cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); mount the password file there or remove the variable`,
    );
  }
  // an editor's or `echo`'s line end is not part of the password
  return { ...env, FTLCONF_webserver_api_password: text.replace(/[\r\n]+$/, "") };
}
