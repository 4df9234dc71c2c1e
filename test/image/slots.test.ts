// The image's two slots (docs/updates.md), run for real with bash, sfdisk, mtools and mkfs on a small disk
// made by the build's own functions (scripts/image-lib/assemble.sh, customize.sh): the partition table
// (MOAT, boot A, boot B, the extended partition holding root A, root B and data, which ends where data does),
// each boot slot's command line, and the boot selection: the real U-Boot (Debian's qemu_arm64 build, the one
// the image test boots) runs the image's boot.scr from partition 1 and picks the slot by the counters in
// moat-boot.env and moat-boot-redund.env (two copies), read and written here with fw_printenv/fw_setenv as RAUC's
// U-Boot backend does on the card.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const LIB = join(ROOT, "scripts/image-lib");
const hasTools = ["sfdisk", "mcopy", "mkfs.vfat", "mkfs.ext4", "jq", "mkimage", "mkenvimage"].every(
  (t) => Bun.which(t) !== null,
);
const U_BOOT = "/usr/lib/u-boot/qemu_arm64/u-boot.bin";
const hasUBoot =
  hasTools && Bun.which("qemu-system-aarch64") !== null && Bun.which("fw_setenv") !== null && existsSync(U_BOOT);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "moat-image-slots-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bash(script: string) {
  const lib = ["common.sh", "assemble.sh", "customize.sh", "qemu.sh"].map((f) => `source '${join(LIB, f)}'`);
  const r = Bun.spawnSync(["bash", "-c", `set -euo pipefail; ${lib.join("; ")}; cd '${dir}'; ${script}`], {
    env: { PATH: process.env.PATH!, SOURCE_DATE_EPOCH: "1735689600" },
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

/** A disk of the image's layout with a made-up kernel and initrd in each boot slot (named by the slot). */
function makeDisk(): void {
  for (const d of ["moat", "boot", "root", "data"]) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, "root/marker"), "root\n");
  const r = bash(`
    moat_partition "$PWD/moat"
    make_fat "$PWD/moat.img" "$MOAT_MB" "$PWD/moat" 16 MOAT "$MOAT_VOLID"
    for slot in A B; do
      rm -f boot/*; echo "kernel $slot" >boot/vmlinuz; echo "initrd $slot" >boot/initrd.img
      slot_cmdline "$slot" >boot/cmdline.txt
      make_fat "$PWD/boot-$slot.img" 64 "$PWD/boot" 32 MOATBOOT "$BOOT_VOLID"
    done
    make_ext4 "$PWD/root.img" 16 rootfs "$ROOT_UUID" "$PWD/root" 2>/dev/null
    make_ext4 "$PWD/data.img" "$DATA_MB" moatdata "$DATA_UUID" "$PWD/data" 2>/dev/null
    assemble_disk "$PWD/disk.img" moat.img boot-A.img boot-B.img root.img data.img`);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
}

test.skipIf(!hasTools)("the partition table of docs/updates.md, data last in the extended partition", () => {
  makeDisk();
  const r = bash(`sfdisk -J disk.img`);
  expect(r.code).toBe(0);
  const table = JSON.parse(r.out).partitiontable;
  expect(table.id).toBe("0x6d6f6174");
  type Part = { node: string; start: number; size: number; type: string };
  const parts = table.partitions as Part[];
  expect(parts.map((p) => p.node.replace(/^.*disk\.img/, ""))).toEqual(["1", "2", "3", "4", "5", "6", "7"]);
  expect(parts.map((p) => p.type)).toEqual(["e", "c", "c", "f", "83", "83", "83"]);
  const end = (p: Part) => p.start + p.size;
  const [moat, bootA, bootB, ext, rootA, rootB, data] = parts as [Part, Part, Part, Part, Part, Part, Part];
  expect(moat.size).toBe(64 * 2048);
  expect(bootA.size).toBe(bootB.size);
  expect(rootA.size).toBe(rootB.size); // B can take any update A can
  // in order, none overlapping, every start on 4 MiB
  const inOrder: Array<[Part, Part]> = [
    [moat, bootA],
    [bootA, bootB],
    [bootB, ext],
    [rootA, rootB],
    [rootB, data],
  ];
  for (const [a, b] of inOrder) expect(end(a)).toBeLessThanOrEqual(b.start);
  for (const p of parts) expect(p.start % 8192).toBe(0);
  // the logical partitions lie inside the extended one, which ends where data (and the disk) does
  expect(rootA.start).toBeGreaterThan(ext.start);
  expect(end(ext)).toBe(end(data));
  expect(bash("stat -c %s disk.img").out.trim()).toBe(String(end(data) * 512));
  // root A holds the root image, the data partition its filesystem
  expect(bash(`e2fsck -fn "disk.img?offset=$(part_offset disk.img 7)" >/dev/null 2>&1`).code).toBe(0);
  expect(bash(`debugfs -R 'cat /marker' "disk.img?offset=$(part_offset disk.img 5)" 2>/dev/null`).out).toBe("root\n");
});

test.skipIf(!hasTools)("each boot slot's cmdline.txt names its own root and rauc.slot", () => {
  const a = bash("slot_cmdline A").out;
  const b = bash("slot_cmdline B").out;
  expect(a).toContain("root=PARTUUID=6d6f6174-05 rw rauc.slot=A ");
  expect(b).toContain("root=PARTUUID=6d6f6174-06 rw rauc.slot=B ");
  expect(a.replace(/-05|=A /g, "")).toBe(b.replace(/-06|=B /g, ""));
  expect(a.endsWith("rootwait panic=10\n")).toBe(true);
});

/** Partition 1's boot counters, the pair of copies, through fw_printenv/fw_setenv (libubootenv with a two-line
 * fw_env.config, as RAUC's backend uses them on the card). */
function counters(set?: string): Record<string, string> {
  const r = bash(`
    off=$(fat_offset disk.img)
    for f in $BOOT_ENV_FILES; do mcopy -o -i "disk.img@@$off" ::/$f $f; done
    fw_env_config "$PWD" >fw_env.config
    ${set ? `fw_setenv -c fw_env.config ${set}; for f in $BOOT_ENV_FILES; do mcopy -o -i "disk.img@@$off" $f ::/$f; done` : ""}
    fw_printenv -c fw_env.config`);
  expect(r.code).toBe(0);
  return Object.fromEntries(
    r.out
      .trim()
      .split("\n")
      .map((l) => l.split("=", 2) as [string, string]),
  );
}

const COPIES = ["moat-boot.env", "moat-boot-redund.env"] as const;

/** Each copy as U-Boot's redundant environment lays it out: CRC32 of the variables, a flags byte, the
 * variables; whole when the CRC matches. */
function copies(): Array<{ whole: boolean; flags: number; vars: Record<string, string> }> {
  return COPIES.map((f) => {
    expect(bash(`mcopy -o -i "disk.img@@$(fat_offset disk.img)" ::/${f} ${f}`).code).toBe(0);
    const b = readFileSync(join(dir, f));
    const data = b.subarray(5);
    const text = data.toString("latin1");
    const vars = Object.fromEntries(
      text
        .slice(0, text.indexOf("\0\0"))
        .split("\0")
        .map((l) => l.split("=", 2) as [string, string]),
    );
    return { whole: b.readUInt32LE(0) === Bun.hash.crc32(data), flags: b[4]!, vars };
  });
}

/** Writes a copy's bytes back onto partition 1 after change(bytes). */
function patchCopy(i: 0 | 1, change: (b: Buffer) => void): void {
  const f = COPIES[i];
  expect(bash(`mcopy -o -i "disk.img@@$(fat_offset disk.img)" ::/${f} ${f}`).code).toBe(0);
  const b = readFileSync(join(dir, f));
  change(b);
  writeFileSync(join(dir, f), b);
  expect(bash(`mcopy -o -i "disk.img@@$(fat_offset disk.img)" ${f} ::/${f}`).code).toBe(0);
}

/** Powers QEMU's virt machine on with U-Boot as its firmware; the made-up kernel cannot start, so the
 * script resets and QEMU (-no-reboot) ends. Returns U-Boot's line naming the slot. */
function boot(): string {
  const log = join(dir, "serial.log");
  const r = Bun.spawnSync(
    [
      "qemu-system-aarch64",
      "-M",
      "virt",
      "-cpu",
      "cortex-a53",
      "-m",
      "512",
      "-bios",
      U_BOOT,
      "-nic",
      "none",
      "-drive",
      `file=${join(dir, "disk.img")},format=raw,if=none,id=disk`,
      "-device",
      "virtio-blk-pci,drive=disk",
      "-display",
      "none",
      "-monitor",
      "none",
      "-serial",
      `file:${log}`,
      "-no-reboot",
    ],
    { timeout: 120_000 },
  );
  expect(r.exitCode).toBe(0);
  const out = readFileSync(log, "utf8").replaceAll("\r", "");
  const lines = out.split("\n").filter((l) => l.startsWith("moat: "));
  // with a slot chosen, it got as far as that slot's kernel
  if (out.includes("moat: booting slot")) expect(out).toContain("Bad Linux ARM64 Image magic");
  return lines.join("\n");
}

test.skipIf(!hasUBoot)(
  "U-Boot's boot script takes a try from the first slot in BOOT_ORDER that has one, and falls back",
  () => {
    makeDisk();
    // a new card: slot A with 3 tries, B (empty until the first update) with none
    expect(counters()).toEqual({ BOOT_ORDER: "A B", BOOT_A_LEFT: "3", BOOT_B_LEFT: "0" });
    expect(boot()).toContain("moat: booting slot A (partition 2); tries left A=2 B=0, order A B");
    expect(counters()).toMatchObject({ BOOT_A_LEFT: "2" });

    // what RAUC's backend writes after installing into B (set-primary): B first with 3 tries
    counters("BOOT_ORDER 'B A' && fw_setenv -c fw_env.config BOOT_B_LEFT 3");
    expect(boot()).toContain("booting slot B (partition 3); tries left A=2 B=2, order B A");
    // mark-good of the booted B gives its try back; a B that never gets that far uses its tries up
    counters("BOOT_B_LEFT 3");
    for (const left of [2, 1, 0]) expect(boot()).toContain(`booting slot B (partition 3); tries left A=2 B=${left}`);
    expect(boot()).toContain("booting slot A (partition 2); tries left A=1 B=0, order B A");

    // nothing left anywhere: both get their tries back and the card starts over rather than stop
    counters("BOOT_A_LEFT 0");
    expect(boot()).toContain("moat: no slot has tries left (order B A): 3 tries each again");
    expect(counters()).toEqual({ BOOT_ORDER: "B A", BOOT_A_LEFT: "3", BOOT_B_LEFT: "3" });

    // both copies damaged: slot A, 3 tries each, said on the console
    writeFileSync(join(dir, "junk"), "not an environment");
    for (const f of COPIES) expect(bash(`mcopy -o -i "disk.img@@$(fat_offset disk.img)" junk ::/${f}`).code).toBe(0);
    const damaged = boot();
    expect(damaged).toContain("moat: moat-boot.env is damaged or missing");
    expect(damaged).toContain("moat: moat-boot-redund.env is damaged or missing");
    expect(damaged).toContain("no whole copy of the boot counters: trying slot A then B, 3 times each");
    expect(damaged).toContain("booting slot A (partition 2); tries left A=2 B=3, order A B");
  },
  600_000,
);

test.skipIf(!hasUBoot)(
  "the counters are two copies: each write goes to the older one, a damaged copy leaves the other",
  () => {
    makeDisk();
    // a new card: both copies alike, flags 1
    expect(copies().map((c) => [c.whole, c.flags, c.vars.BOOT_A_LEFT])).toEqual([
      [true, 1, "3"],
      [true, 1, "3"],
    ]);
    // equal flags: U-Boot reads the first copy and writes the second, one flag above
    expect(boot()).toContain("booting slot A (partition 2); tries left A=2 B=0, order A B");
    expect(copies().map((c) => [c.whole, c.flags, c.vars.BOOT_A_LEFT])).toEqual([
      [true, 1, "3"],
      [true, 2, "2"],
    ]);
    // each fw_setenv (RAUC's backend) writes the older copy: the first, then the second
    counters("BOOT_ORDER 'B A' && fw_setenv -c fw_env.config BOOT_B_LEFT 3");
    expect(copies().map((c) => [c.flags, c.vars.BOOT_ORDER, c.vars.BOOT_B_LEFT])).toEqual([
      [3, "B A", "0"],
      [4, "B A", "3"],
    ]);
    // U-Boot reads the newer, second copy and writes the first
    expect(boot()).toContain("booting slot B (partition 3); tries left A=2 B=2, order B A");
    expect(copies().map((c) => [c.flags, c.vars.BOOT_B_LEFT])).toEqual([
      [5, "2"],
      [4, "3"],
    ]);

    // a power cut in the middle of U-Boot's write: the copy it wrote is damaged; the other, one step older, is used
    patchCopy(0, (b) => b.fill(0, 20));
    const cut = boot();
    expect(cut).toContain("moat: moat-boot.env is damaged or missing");
    expect(cut).toContain("booting slot B (partition 3); tries left A=2 B=2, order B A");
    expect(copies().map((c) => [c.whole, c.flags, c.vars.BOOT_B_LEFT])).toEqual([
      [true, 5, "2"],
      [true, 4, "3"],
    ]);
    expect(counters()).toEqual({ BOOT_ORDER: "B A", BOOT_A_LEFT: "2", BOOT_B_LEFT: "2" });

    // the flags wrap as U-Boot's own env code counts them: 0 after 255 is the newer
    patchCopy(0, (b) => {
      b[4] = 255;
    });
    patchCopy(1, (b) => {
      b[4] = 0;
    });
    expect(boot()).toContain("booting slot B (partition 3); tries left A=2 B=2, order B A");
    expect(copies().map((c) => [c.flags, c.vars.BOOT_B_LEFT])).toEqual([
      [1, "2"],
      [0, "3"],
    ]);
  },
  600_000,
);
