// scripts/release.sh with the Raspberry Pi image left out (MOAT_RELEASE_IMAGE=0), checked as a person
// checks a download (README "Checking a download"): sha256sum -c, then openssl against the certificate.
import { beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../harness/moat.ts";
import { VERSION, canRunContainers, run } from "../container/podman.ts";

const DIST = join(ROOT, "dist");
const hasDebBuild = existsSync(join(ROOT, "scripts/build-deb.sh"));

/** A person's check of the signature over the file `sums`, with the certificate shipped beside it. */
function verify(sums: string): { code: number; out: string } {
  const cmd = `cd '${DIST}' && openssl dgst -sha256 -verify <(openssl x509 -in moat-release.cert.pem -pubkey -noout) -signature SHA256SUMS.sig '${sums}'`;
  const r = run(["bash", "-c", cmd]);
  return { code: r.code, out: r.out + r.err };
}

describe.skipIf(!canRunContainers())("scripts/release.sh", () => {
  let sums: Map<string, string>;

  beforeAll(async () => {
    const p = Bun.spawn(["bash", join(ROOT, "scripts/release.sh")], {
      env: { ...process.env, MOAT_RELEASE_IMAGE: "0" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.exited,
    ]);
    if (code !== 0) throw new Error(`scripts/release.sh failed (${code}):\n${out}\n${err}`);
    sums = new Map(
      readFileSync(join(DIST, "SHA256SUMS"), "utf8")
        .trim()
        .split("\n")
        .map((l) => {
          const [hash, name] = l.split(/\s+\*?/);
          return [name!, hash!];
        }),
    );
  }, 600_000);

  test("SHA256SUMS names each release file, and they match", () => {
    const expected = [
      `moat-${VERSION}-linux-x64`,
      `moat-${VERSION}-linux-arm64`,
      `moat-${VERSION}-oci.tar`,
      `moat-${VERSION}.cdx.json`,
      ...(hasDebBuild ? [`moat_${VERSION}_amd64.deb`, `moat_${VERSION}_arm64.deb`] : []),
    ].sort();
    expect([...sums.keys()].sort()).toEqual(expected);
    const check = run(["bash", "-c", `cd '${DIST}' && sha256sum --strict -c SHA256SUMS`]);
    expect(check.err).toBe("");
    expect(check.code).toBe(0);
    // nothing for 32-bit ARM: Bun does not run there
    expect([...sums.keys()].filter((n) => /arm(hf|v6|v7|el)/.test(n))).toEqual([]);
  });

  test("the signature over SHA256SUMS verifies with the certificate, and a changed SHA256SUMS does not", () => {
    const good = verify("SHA256SUMS");
    expect(good.code).toBe(0);
    expect(good.out.trim()).toBe("Verified OK");
    const dir = mkdtempSync(join(tmpdir(), "moat-release-"));
    const forged = join(dir, "SHA256SUMS");
    copyFileSync(join(DIST, "SHA256SUMS"), forged);
    const text = readFileSync(forged, "utf8");
    writeFileSync(forged, (text[0] === "0" ? "1" : "0") + text.slice(1));
    const bad = verify(forged);
    rmSync(dir, { recursive: true });
    expect(bad.code).not.toBe(0);
    expect(bad.out).toContain("Verification failure");
  });

  test("the binaries are Linux x86-64 and AArch64 executables; the x64 one runs", () => {
    const machine = (f: string) => readFileSync(join(DIST, f)).readUInt16LE(18);
    expect(machine(`moat-${VERSION}-linux-x64`)).toBe(0x3e);
    expect(machine(`moat-${VERSION}-linux-arm64`)).toBe(0xb7);
    const v = run([join(DIST, `moat-${VERSION}-linux-x64`), "version"]);
    expect(v.out).toStartWith(`moat v${VERSION} `);
  });

  test("the SBOM is CycloneDX and names the bundled packages and the Bun runtime", () => {
    const bom = JSON.parse(readFileSync(join(DIST, `moat-${VERSION}.cdx.json`), "utf8")) as {
      bomFormat: string;
      components: { name: string; version: string }[];
    };
    expect(bom.bomFormat).toBe("CycloneDX");
    const names = bom.components.map((c) => c.name);
    expect(names).toContain("elysia");
    expect(names).toContain("preact");
    expect(names).toContain("bun");
    expect(names).not.toContain("typescript");
  });
});
