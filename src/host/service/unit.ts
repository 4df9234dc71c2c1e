// Moat's systemd unit has one source, the Pi image's (image/rootfs/etc/systemd/system/moat.service): the
// Debian package ships that file as it is (scripts/build-deb.sh), and `moat service install` writes it with
// ExecStart pointing at where it copied the binary. The text is embedded in the compiled binary.
import IMAGE_UNIT from "../../../image/rootfs/etc/systemd/system/moat.service" with { type: "text" };

/** The program the image's and the package's unit start. */
export const PACKAGED_BINARY = "/usr/bin/moat";

/** The unit for a binary at `binary`: the image's unit, its ExecStart program replaced. */
export function unitFor(binary: string, source: string = IMAGE_UNIT): string {
  if (!binary.startsWith("/") || /\s/.test(binary))
    throw new Error(`the binary's path must be absolute, without spaces: ${binary}`);
  let found = 0;
  const text = source.replace(/^ExecStart=(\S+)/gm, () => {
    found++;
    return `ExecStart=${binary}`;
  });
  if (found !== 1) throw new Error(`the unit must have one ExecStart line, it has ${found}`);
  return text;
}

/** The program a unit's ExecStart runs (null when it has none). */
export function execStartOf(unit: string): string | null {
  return /^ExecStart=[-@:+!]*(\S+)/m.exec(unit)?.[1] ?? null;
}
