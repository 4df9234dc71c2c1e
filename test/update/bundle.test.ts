// scripts/build-bundle.sh with the real rauc and openssl: what the bundle's manifest says, who signed it, the
// development key (valid from before any image's clock floor, never in a release) and the keyring with the
// next key.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, run } from "../harness/moat.ts";
import { UpdateFixture, hasRauc } from "./fixture.ts";

const fx = hasRauc ? new UpdateFixture() : null;
afterAll(() => fx?.dispose());

async function info(bundle: string, cert: string) {
  const r = await run(["rauc", "info", `--keyring=${cert}`, "--output-format=json", bundle]);
  return { code: r.code, json: r.code === 0 ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}

test.skipIf(!hasRauc)("a bundle carries its version and compatible, signed by the given key", async () => {
  for (const format of ["verity", "plain"]) {
    const b = fx!.bundle("2.0.0", { format });
    const r = await info(b, fx!.project.cert);
    expect(r.code).toBe(0);
    expect(r.json.version).toBe("2.0.0");
    expect(r.json.compatible).toBe("moat-rpi-arm64");
    expect(r.json.images[0].rootfs.filename).toBe("root.ext4");
    // another keyring does not vouch for it
    const other = await info(b, fx!.stranger.cert);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain("signature verification failed");
  }
  const other = fx!.bundle("2.0.1", { compatible: "moat-x86-64" });
  expect((await info(other, fx!.project.cert)).json.compatible).toBe("moat-x86-64");
});

test.skipIf(!hasRauc)("without a key, a development pair is made once and reused", async () => {
  const keydir = join(fx!.dir, "devkeys");
  const env = { MOAT_BUNDLE_KEYDIR: keydir, MOAT_BUNDLE_VERSION: "0.0.1", BUNDLE_FORMAT: "plain" };
  const build = (out: string) => run([join(ROOT, "scripts/build-bundle.sh"), out, fx!.rootImage("0.0.1")], { env });
  const first = await build(join(fx!.dir, "dev1.raucb"));
  expect(first.code).toBe(0);
  expect(first.stderr).toContain("making a development key pair");
  const cert = join(keydir, "dev-only-bundle.cert.pem");
  const pem = readFileSync(cert, "utf8");
  const second = await build(join(fx!.dir, "dev2.raucb"));
  expect(second.code).toBe(0);
  expect(second.stderr).not.toContain("making a development key pair");
  expect(readFileSync(cert, "utf8")).toBe(pem);
  expect((await info(join(fx!.dir, "dev2.raucb"), cert)).json.version).toBe("0.0.1");
  // valid from 2020 (a Pi without a clock battery starts at the image's clock floor, never before), and
  // named for what it is
  const dates = await run(["openssl", "x509", "-noout", "-subject", "-startdate", "-in", cert]);
  expect(dates.stdout).toContain("notBefore=Jan  1 00:00:00 2020 GMT");
  expect(dates.stdout).toContain("Moat development, not for releases");
});

test.skipIf(!hasRauc)("a release is signed with the release key only: never the development one", async () => {
  const keydir = join(fx!.dir, "devkeys");
  const bundle = (env: Record<string, string>) =>
    run([join(ROOT, "scripts/build-bundle.sh"), join(fx!.dir, "release.raucb"), fx!.rootImage("1.0.0")], {
      env: { MOAT_BUNDLE_KEYDIR: keydir, MOAT_BUNDLE_VERSION: "1.0.0", BUNDLE_FORMAT: "plain", ...env },
    });
  const none = await bundle({ MOAT_RELEASE: "1" });
  expect(none.code).toBe(1);
  expect(none.stderr).toContain("a release (MOAT_RELEASE=1) is signed with the release key: set MOAT_BUNDLE_KEY");
  const dev = await bundle({
    MOAT_RELEASE: "1",
    MOAT_BUNDLE_KEY: join(keydir, "dev-only-bundle.key.pem"),
    MOAT_BUNDLE_CERT: join(keydir, "dev-only-bundle.cert.pem"),
  });
  expect(dev.code).toBe(1);
  expect(dev.stderr).toContain("a release is never signed with the development key");
  expect(existsSync(join(fx!.dir, "release.raucb"))).toBe(false);
  const release = await bundle({
    MOAT_RELEASE: "1",
    MOAT_BUNDLE_KEY: fx!.project.key,
    MOAT_BUNDLE_CERT: fx!.project.cert,
  });
  expect(release.code).toBe(0);
  expect((await info(join(fx!.dir, "release.raucb"), fx!.project.cert)).json.version).toBe("1.0.0");
});

test.skipIf(!hasRauc)("the keyring holds the signing certificate, then the next key's (rotation)", async () => {
  const next = fx!.keyPair("next", "Moat next key");
  const env = { MOAT_BUNDLE_KEY: fx!.project.key, MOAT_BUNDLE_CERT: fx!.project.cert };
  const alone = await run([join(ROOT, "scripts/build-bundle.sh"), "--keyring"], { env });
  expect(alone.stdout).toBe(readFileSync(fx!.project.cert, "utf8"));
  const both = await run([join(ROOT, "scripts/build-bundle.sh"), "--keyring"], {
    env: { ...env, MOAT_BUNDLE_NEXT_CERT: next.cert },
  });
  expect(both.code).toBe(0);
  expect(both.stdout).toBe(readFileSync(fx!.project.cert, "utf8") + readFileSync(next.cert, "utf8"));
  // what the image's RAUC checks: a bundle of either key verifies against that keyring
  const keyring = join(fx!.dir, "keyring.pem");
  writeFileSync(keyring, both.stdout);
  const signed = fx!.bundle("3.0.0", { keys: next });
  expect((await info(signed, keyring)).json.version).toBe("3.0.0");
  expect((await info(fx!.bundle("3.0.1"), keyring)).json.version).toBe("3.0.1");
  const missing = await run([join(ROOT, "scripts/build-bundle.sh"), "--keyring"], {
    env: { ...env, MOAT_BUNDLE_NEXT_CERT: join(fx!.dir, "no-such.pem") },
  });
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("MOAT_BUNDLE_NEXT_CERT must name a PEM file");
});

test.skipIf(!hasRauc)("a version that would break the manifest is refused", async () => {
  const r = await run([join(ROOT, "scripts/build-bundle.sh"), join(fx!.dir, "x.raucb"), fx!.rootImage("1")], {
    env: {
      MOAT_BUNDLE_VERSION: "1\n[image.evil]",
      MOAT_BUNDLE_KEY: fx!.project.key,
      MOAT_BUNDLE_CERT: fx!.project.cert,
    },
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("may hold letters, digits");
  expect(existsSync(join(fx!.dir, "x.raucb"))).toBe(false);
});
