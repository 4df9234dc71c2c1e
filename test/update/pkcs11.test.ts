// The release key on a token (docs/updates.md, "Signing keys"): SoftHSM (Debian's softhsm2) stands in for the
// hardware token, with a key pair made on it that cannot be read off it. scripts/build-bundle.sh signs a bundle
// and scripts/release.sh's SHA256SUMS (--sign) through OpenSSL's pkcs11 engine with nothing but the key's
// pkcs11: URI (RFC 7512), and what it signs is checked as RAUC and a person check it: against the certificate.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, run } from "../harness/moat.ts";
import { UpdateFixture, hasRauc } from "./fixture.ts";

const MODULE = "/usr/lib/softhsm/libsofthsm2.so";
function engineDir(): string {
  const r = Bun.spawnSync(["openssl", "version", "-e"]);
  return r.stdout.toString().match(/ENGINESDIR: "([^"]+)"/)?.[1] ?? "";
}
const hasToken =
  hasRauc &&
  existsSync(MODULE) &&
  Bun.which("softhsm2-util") !== null &&
  Bun.which("pkcs11-tool") !== null &&
  existsSync(join(engineDir(), "pkcs11.so"));

const PIN = "4711";
const KEY = `pkcs11:token=moat-release;object=release;type=private;pin-value=${PIN}`;
const fx = hasToken ? new UpdateFixture() : null;
let dir: string;
let env: Record<string, string>;
let cert: string;

beforeAll(async () => {
  if (!hasToken) return;
  dir = mkdtempSync(join(tmpdir(), "moat-pkcs11-"));
  mkdirSync(join(dir, "tokens"));
  writeFileSync(
    join(dir, "softhsm2.conf"),
    `directories.tokendir = ${dir}/tokens\nobjectstore.backend = file\nlog.level = ERROR\n`,
  );
  // RAUC_PKCS11_MODULE names the module for RAUC, and build-bundle.sh gives it to openssl's engine too
  env = { SOFTHSM2_CONF: join(dir, "softhsm2.conf"), RAUC_PKCS11_MODULE: MODULE };
  const steps = [
    ["softhsm2-util", "--init-token", "--free", "--label", "moat-release", "--so-pin", "12345678", "--pin", PIN],
    // the key pair is made on the token: its private half is never in a file
    ["pkcs11-tool", "--module", MODULE, "--token-label", "moat-release", "--login", "--pin", PIN].concat([
      "--keypairgen",
      "--key-type",
      "rsa:2048",
      "--label",
      "release",
      "--id",
      "01",
    ]),
    ["openssl", "req", "-new", "-x509", "-days", "2", "-subj", "/CN=Moat release key on a token"].concat([
      "-engine",
      "pkcs11",
      "-keyform",
      "engine",
      "-key",
      KEY,
      "-out",
      join(dir, "release.cert.pem"),
    ]),
  ];
  for (const cmd of steps) {
    const r = await run(cmd, { env: { ...env, PKCS11_MODULE_PATH: MODULE } });
    if (r.code !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr}`);
  }
  cert = join(dir, "release.cert.pem");
});
afterAll(() => {
  fx?.dispose();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test.skipIf(!hasToken)(
  "a release's SHA256SUMS is signed through the token, and a person's check verifies it",
  async () => {
    const sums = join(dir, "SHA256SUMS");
    writeFileSync(sums, "0123abcd  moat-1.0.0-linux-x64\n");
    const r = await run(["bash", join(ROOT, "scripts/build-bundle.sh"), "--sign", sums], {
      env: { ...env, MOAT_RELEASE: "1", MOAT_BUNDLE_KEY: KEY, MOAT_BUNDLE_CERT: cert },
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // README "Checking a download"
    const verify = () =>
      run([
        "bash",
        "-c",
        `openssl dgst -sha256 -verify <(openssl x509 -in '${cert}' -pubkey -noout) -signature '${sums}.sig' '${sums}'`,
      ]);
    const ok = await verify();
    expect(ok.stdout).toContain("Verified OK");
    writeFileSync(sums, `${readFileSync(sums, "utf8")}0123abcd  moat-1.0.0-linux-arm64\n`);
    expect((await verify()).code).not.toBe(0);
  },
);

test.skipIf(!hasToken)("a key the token does not hold: a clear error and no signature", async () => {
  const sums = join(dir, "SHA256SUMS.other");
  writeFileSync(sums, "x\n");
  const r = await run(["bash", join(ROOT, "scripts/build-bundle.sh"), "--sign", sums], {
    env: {
      ...env,
      MOAT_BUNDLE_KEY: `pkcs11:token=moat-release;object=nothere;pin-value=${PIN}`,
      MOAT_BUNDLE_CERT: cert,
    },
  });
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain("openssl could not sign");
  expect(existsSync(`${sums}.sig`)).toBe(false);
});

test.skipIf(!hasToken)(
  "a bundle signed through the token is the release's: RAUC verifies it against the certificate",
  async () => {
    const out = join(dir, "release.raucb");
    const r = await run(["bash", join(ROOT, "scripts/build-bundle.sh"), out, fx!.rootImage("1.0.0")], {
      env: {
        ...env,
        MOAT_RELEASE: "1",
        MOAT_BUNDLE_KEY: KEY,
        MOAT_BUNDLE_CERT: cert,
        MOAT_BUNDLE_VERSION: "1.0.0",
        BUNDLE_FORMAT: "plain",
      },
    });
    expect(r.code).toBe(0);
    const info = await run(["rauc", "info", `--keyring=${cert}`, "--output-format=json", out]);
    expect(info.code).toBe(0);
    expect(JSON.parse(info.stdout).version).toBe("1.0.0");
    expect(info.stderr).toContain("Verified detached signature by 'CN = Moat release key on a token'");
    // the project's other key does not vouch for it
    expect((await run(["rauc", "info", `--keyring=${fx!.project.cert}`, out])).code).not.toBe(0);
  },
);
