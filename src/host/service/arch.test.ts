import { expect, test } from "bun:test";
import { archRefusal, elfArch, systemArch } from "./arch.ts";

/** The first 20 bytes of an ELF file: class (1: 32-bit, 2: 64-bit), little-endian, e_machine. */
function header(bits: 32 | 64, machine: number, bigEndian = false): Uint8Array {
  const h = new Uint8Array(20);
  h.set([0x7f, 0x45, 0x4c, 0x46, bits === 64 ? 2 : 1, bigEndian ? 2 : 1, 1]);
  h[16] = 2; // ET_EXEC
  if (bigEndian) h.set([machine >> 8, machine & 0xff], 18);
  else h.set([machine & 0xff, machine >> 8], 18);
  return h;
}

test("the ELF machine names node's architecture", () => {
  expect(elfArch(header(64, 62))).toBe("x64");
  expect(elfArch(header(64, 183))).toBe("arm64");
  expect(elfArch(header(32, 40))).toBe("arm");
  expect(elfArch(header(32, 3))).toBe("ia32");
  expect(elfArch(header(64, 21, true))).toBe("ELF machine 21 (64-bit)");
  expect(elfArch(new TextEncoder().encode("#!/bin/sh\necho not elf\n"))).toBeNull();
  expect(elfArch(header(64, 62).slice(0, 10))).toBeNull();
});

test("this machine's /bin/sh is of the architecture this test runs on", () => {
  expect(systemArch()).toBe(process.arch);
  expect(systemArch("/nonexistent")).toBeNull();
});

test("a 32-bit ARM system is refused in one line that says why and what would work; the other 64-bit binary is named", () => {
  const arm = archRefusal("arm", "arm64");
  expect(arm).toContain("32-bit ARM (armhf)");
  expect(arm).toContain("runs only on 64-bit x86 and ARM (amd64, arm64)");
  expect(arm).toContain("Raspberry Pi OS 64-bit");
  expect(arm).not.toContain("\n");
  expect(archRefusal("arm64", "x64")).toBe(
    "this is Moat's linux-x64 binary, and this system is arm64: use the moat-<version>-linux-arm64 binary",
  );
  expect(archRefusal("x64", "x64")).toBeNull();
  // unknown: nothing to say rather than a wrong refusal
  expect(archRefusal(null, "arm64")).toBeNull();
});
