// WEBPASSWORD_FILE as Pi-hole's container image reads it: a path, or a secret's name under /run/secrets.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, withPasswordFile } from "./index.ts";

const dir = mkdtempSync(join(tmpdir(), "moat-pwfile-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the file's text, without its line end, becomes the password", () => {
  const file = join(dir, "pw");
  writeFileSync(file, "two words\n");
  expect(withPasswordFile({ WEBPASSWORD_FILE: file }).FTLCONF_webserver_api_password).toBe("two words");
});

test("FTLCONF_webserver_api_password wins when set; an empty one lets the file speak", () => {
  const file = join(dir, "pw2");
  writeFileSync(file, "file");
  expect(withPasswordFile({ WEBPASSWORD_FILE: file, FTLCONF_webserver_api_password: "env" })).toEqual({
    WEBPASSWORD_FILE: file,
    FTLCONF_webserver_api_password: "env",
  });
  expect(
    withPasswordFile({ WEBPASSWORD_FILE: file, FTLCONF_webserver_api_password: "" }).FTLCONF_webserver_api_password,
  ).toBe("file");
  const env = { PATH: "/bin" };
  expect(withPasswordFile(env)).toBe(env);
});

test("a file that cannot be read stops the start with a sentence naming it", () => {
  expect(() => withPasswordFile({ WEBPASSWORD_FILE: join(dir, "missing") })).toThrow(ConfigError);
  expect(() => withPasswordFile({ WEBPASSWORD_FILE: "moat_pw" })).toThrow(
    "WEBPASSWORD_FILE names /run/secrets/moat_pw, which cannot be read (ENOENT)",
  );
});
