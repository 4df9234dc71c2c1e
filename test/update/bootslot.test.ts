// A bundle's boot image is boot A's (scripts/build-image.sh), so its cmdline.txt names root A and
// rauc.slot=A. The image's post-install handler (scripts/image-lib/rauc/rauc-post-install) makes it the
// target slot's: installed into B, the boot slot's cmdline.txt names B's root and rauc.slot=B, all else
// kept. Run with the real rauc service (fixture.ts) on slot files, boot slots included, a boot image made by
// the build's own slot_cmdline, and the bundle from scripts/build-bundle.sh.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, run } from "../harness/moat.ts";
import { UpdateFixture, hasRauc } from "./fixture.ts";

const HANDLER = join(ROOT, "scripts/image-lib/rauc/rauc-post-install");
const LIB = join(ROOT, "scripts/image-lib");
const can = hasRauc && ["dbus-daemon", "mkfs.vfat", "mcopy", "mtype"].every((t) => Bun.which(t) !== null);

let fx: UpdateFixture;
let bootA: string;
let bootB: string;

beforeAll(async () => {
  if (!can) return;
  fx = new UpdateFixture();
  const conf = fx.systemConf();
  bootA = join(fx.dir, "system/bootA.img");
  bootB = join(fx.dir, "system/bootB.img");
  for (const f of [bootA, bootB]) {
    writeFileSync(f, "");
    truncateSync(f, 16 * 1024 * 1024);
  }
  // the image's boot slots and handler, on the fixture's slot files
  const text = readFileSync(conf, "utf8").replace(/^(\[keyring\])$/m, `[handlers]\npost-install=${HANDLER}\n\n$1`);
  writeFileSync(
    conf,
    `${text}
[slot.boot.0]
device=${bootA}
type=raw
parent=rootfs.0

[slot.boot.1]
device=${bootB}
type=raw
parent=rootfs.1
`,
  );
  await fx.startService("A");
});
afterAll(async () => {
  if (can) await fx.dispose();
});

function bash(script: string) {
  const r = Bun.spawnSync(["bash", "-c", `set -euo pipefail; ${script}`], {
    env: { ...(process.env as Record<string, string>), MTOOLS_SKIP_CHECK: "1" },
  });
  if (r.exitCode !== 0) throw new Error(`${script} failed: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

test.skipIf(!can)("installed into slot B, the boot image's cmdline.txt names root B and rauc.slot=B", async () => {
  // a boot image as the build makes it: boot A's cmdline.txt
  const boot = join(fx.dir, "boot.vfat");
  const tree = join(fx.dir, "boot-tree");
  bash(`mkdir -p '${tree}' && echo kernel >'${tree}/vmlinuz'
    source '${LIB}/common.sh'; source '${LIB}/customize.sh'; slot_cmdline A >'${tree}/cmdline.txt'
    mkfs.vfat -n MOATBOOT -C '${boot}' 8192 >/dev/null; mcopy -s -i '${boot}' '${tree}'/* ::/`);
  const original = bash(`mtype -i '${boot}' ::/cmdline.txt`);
  expect(original).toContain("root=PARTUUID=6d6f6174-05 rw rauc.slot=A ");

  const bundle = join(fx.dir, "with-boot.raucb");
  bash(`MOAT_BUNDLE_VERSION=2.0.0 MOAT_BUNDLE_KEY='${fx.project.key}' MOAT_BUNDLE_CERT='${fx.project.cert}' \
    BUNDLE_FORMAT=plain '${ROOT}/scripts/build-bundle.sh' '${bundle}' '${fx.rootImage("2.0.0")}' '${boot}' 2>/dev/null`);

  const r = await run(["rauc", `--conf=${fx.slots.conf}`, "install", bundle], { env: fx.busEnv });
  expect(r.code).toBe(0);
  expect(fx.serviceLog).toContain("Starting post install handler");

  const written = bash(`mtype -i '${bootB}' ::/cmdline.txt`);
  expect(written).toBe(
    original.replace("root=PARTUUID=6d6f6174-05", `root=${fx.slots.b}`).replace("rauc.slot=A", "rauc.slot=B"),
  );
  expect(bash(`mtype -i '${bootB}' ::/vmlinuz`)).toBe("kernel\n"); // the rest of the image as it was
  // the running slot's boot partition is not touched
  expect(readFileSync(bootA).every((b) => b === 0)).toBe(true);
});
