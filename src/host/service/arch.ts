// Which processor the machine's own programs are built for, and whether Moat's binary can run there. Bun,
// hence Moat, exists for 64-bit x86 and ARM only; a Raspberry Pi OS 32-bit (armhf) userland can run neither
// binary, even on a 64-bit kernel (no 64-bit C library), so `uname -m` is not the question: the ELF header of
// the system's own /bin/sh is.
import { closeSync, openSync, readSync } from "node:fs";

/** node's names (process.arch) for the ELF machines (elf(5) e_machine); anything else is described. */
export function elfArch(header: Uint8Array): string | null {
  if (header.length < 20 || header[0] !== 0x7f || header[1] !== 0x45 || header[2] !== 0x4c || header[3] !== 0x46)
    return null;
  const bits = header[4] === 2 ? 64 : 32;
  const machine = header[5] === 2 ? (header[18]! << 8) | header[19]! : header[18]! | (header[19]! << 8);
  const known: Record<number, string> = { 3: "ia32", 40: "arm", 62: "x64", 183: "arm64", 243: "riscv64" };
  return known[machine] ?? `ELF machine ${machine} (${bits}-bit)`;
}

/** The architecture of the system's programs, from its shell's ELF header (null when unreadable). */
export function systemArch(shell = "/bin/sh"): string | null {
  try {
    const fd = openSync(shell, "r");
    const header = new Uint8Array(20);
    try {
      readSync(fd, header, 0, 20, 0);
    } finally {
      closeSync(fd);
    }
    return elfArch(header);
  } catch {
    return null;
  }
}

const DEBIAN_NAME: Record<string, string> = { x64: "amd64", arm64: "arm64", arm: "armhf", ia32: "i386" };
const RELEASE_NAME: Record<string, string> = { x64: "linux-x64", arm64: "linux-arm64" };

/** One line saying why this binary cannot serve on this system, or null when it can. */
export function archRefusal(system: string | null, binary: string): string | null {
  if (system === null || system === binary) return null;
  if (!(system in RELEASE_NAME))
    return (
      `Moat cannot run on this system: its programs are ${system === "arm" ? "32-bit ARM" : system} (${DEBIAN_NAME[system] ?? system}), ` +
      "and Bun, which Moat is built on, runs only on 64-bit x86 and ARM (amd64, arm64); a Raspberry Pi 3, 4, 5 " +
      "or Zero 2 W can run Raspberry Pi OS 64-bit, a Pi 1, Zero or Zero W cannot"
    );
  return `this is Moat's ${RELEASE_NAME[binary] ?? binary} binary, and this system is ${DEBIAN_NAME[system]}: use the moat-<version>-${RELEASE_NAME[system]} binary`;
}
