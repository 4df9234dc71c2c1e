// The image's two slots (docs/updates.md), run for real with bash, sfdisk, mtools and mkfs on a small disk
// made by the build's own functions (scripts/image-lib/assemble.sh, customize.sh): the partition table
// (MOAT, boot A, boot B, the extended partition holding root A, root B and data, which ends where data does),
// each boot slot's command line, and the test harness's stand-in for the Pi firmware (qemu.sh): it boots the
// slot autoboot.txt's [all] names, and [tryboot]'s once when the backend left its qemu-tryboot file.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const LIB = join(ROOT, "scripts/image-lib");
const hasTools = ["sfdisk", "mcopy", "mkfs.vfat", "mkfs.ext4", "jq"].every((t) => Bun.which(t) !== null);

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
      rm -f boot/*; echo "kernel $slot" >boot/vmlinuz-6.12; echo "initrd $slot" >boot/initrd.img-6.12
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
  expect(moat.size).toBe(16 * 2048);
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
  expect(a.endsWith("rootwait\n")).toBe(true);
});

test.skipIf(!hasTools)("the firmware stand-in boots [all]'s slot, and [tryboot]'s once after the marker", () => {
  makeDisk();
  const boot = () => {
    const r = bash(`mkdir -p k; extract_kernel disk.img k; echo "$BOOTED_PARTITION|$CMDLINE"`);
    expect(r.code).toBe(0);
    const [part, cmdline] = r.out.trim().split("|");
    return { part, cmdline, kernel: readFileSync(join(dir, "k/vmlinuz"), "utf8").trim(), log: r.err };
  };
  let b = boot();
  expect(b).toMatchObject({ part: "2", kernel: "kernel A" });
  expect(b.cmdline).toContain("rauc.slot=A");
  expect(b.cmdline).toContain("console=ttyAMA0");
  expect(b.log).toContain("autoboot.txt [all] boots partition 2");

  // what rauc-tryboot's reboot leaves when a trial of slot B is pending: taken once, then gone
  writeFileSync(join(dir, "flag"), "");
  expect(bash(`mcopy -i "disk.img@@$(fat_offset disk.img)" flag ::/qemu-tryboot`).code).toBe(0);
  b = boot();
  expect(b).toMatchObject({ part: "3", kernel: "kernel B" });
  expect(b.cmdline).toContain("root=PARTUUID=6d6f6174-06 rw rauc.slot=B");
  expect(bash(`mdir -b -i "disk.img@@$(fat_offset disk.img)" ::/`).out).not.toContain("qemu-tryboot");
  expect(boot().part).toBe("2"); // the next boot without the flag: [all] again

  // once B proved healthy, the backend makes it [all]'s
  writeFileSync(join(dir, "autoboot.txt"), "[all]\ntryboot_a_b=1\nboot_partition=3\n[tryboot]\nboot_partition=3\n");
  expect(bash(`mcopy -o -i "disk.img@@$(fat_offset disk.img)" autoboot.txt ::/autoboot.txt`).code).toBe(0);
  expect(boot()).toMatchObject({ part: "3", kernel: "kernel B" });
});
