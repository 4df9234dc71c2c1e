// scripts/build-bundle.sh and the image's tryboot backend (scripts/image-lib/rauc/), with the real rauc and
// openssl: what the bundle's manifest says, who signed it, and how autoboot.txt moves through a trial boot.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, run } from "../harness/moat.ts";
import { BACKEND, UpdateFixture, hasRauc } from "./fixture.ts";

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
  const cert = join(keydir, "dev-bundle.cert.pem");
  const pem = readFileSync(cert, "utf8");
  const second = await build(join(fx!.dir, "dev2.raucb"));
  expect(second.code).toBe(0);
  expect(second.stderr).not.toContain("making a development key pair");
  expect(readFileSync(cert, "utf8")).toBe(pem);
  expect((await info(join(fx!.dir, "dev2.raucb"), cert)).json.version).toBe("0.0.1");
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

test.skipIf(!hasRauc)("tryboot backend: a new slot is tried once and becomes the default only when good", async () => {
  fx!.systemConf();
  const s = fx!.slots;
  const env = fx!.backendEnv;
  const be = async (...args: string[]) => {
    const r = await run([BACKEND, ...args], { env });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    return r.stdout.trim();
  };
  const autoboot = () => readFileSync(s.autoboot, "utf8");
  expect(await be("get-current")).toBe("A");
  expect(await be("get-primary")).toBe("A");
  // what rauc install does: mark the target bad while writing it, then make it primary
  await be("set-state", "B", "bad");
  expect(await be("get-state", "B")).toBe("bad");
  await be("set-primary", "B");
  expect(await be("get-primary")).toBe("B");
  expect(await be("get-state", "B")).toBe("good");
  // the default stays A: only the next tryboot reboot takes partition 3
  expect(autoboot()).toBe("[all]\ntryboot_a_b=1\nboot_partition=2\n[tryboot]\nboot_partition=3\n");

  // the trial boot failed: the firmware booted A again; marking A good does not make B the default
  await be("set-state", "A", "good");
  expect(autoboot()).toContain("[all]\ntryboot_a_b=1\nboot_partition=2\n");

  // a second trial that comes up on B and is marked good: B is the default from now on
  writeFileSync(s.cmdline, "root=PARTUUID=6d6f6174-06 rauc.slot=B\n");
  await be("set-state", "B", "good");
  expect(autoboot()).toBe("[all]\ntryboot_a_b=1\nboot_partition=3\n[tryboot]\nboot_partition=3\n");
  expect(readFileSync(join(s.autoboot, "../autoboot.bak"), "utf8")).toContain("[tryboot]\nboot_partition=3");
  expect(await be("get-primary")).toBe("B");
  expect(await be("get-state", "B")).toBe("good");
  // making the running default primary again is no trial
  await be("set-primary", "B");
  expect(existsSync(join(s.state, "trial"))).toBe(false);

  const bad = await run([BACKEND, "set-primary", "C"], { env });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("unknown slot 'C'");
});
