// What a bundle is, and whether this system may take it: `rauc info` checks the signature against the
// keyring (a bundle signed by any other key fails here) and the bundle's structure (a truncated one fails
// here); the compatible is compared by us, as `rauc info` shows it but does not check it.
import { rauc, raucError, UpdateRefused, type RaucSystem } from "./rauc.ts";

export interface Bundle {
  version: string;
  compatible: string;
}

/** Turns rauc's reason into a sentence for a person; unknown reasons are passed on as rauc wrote them. */
function refusal(stderr: string): string {
  // a plain bundle's signature covers its whole payload: a changed byte fails the digest, not the signer
  if (/content verify error/i.test(stderr))
    return "the bundle is damaged (its content does not match its signature): refused";
  if (/certificate has expired/i.test(stderr)) return "the bundle's signing certificate has expired: refused";
  if (/signature verification failed|Verify error|CMS/i.test(stderr))
    return "the bundle is not signed by this system's update key: refused";
  if (/Invalid bundle format|exceeds bundle size|too small|Failed to seek|squashfs|Failed to read|magic/i.test(stderr))
    return "the bundle is truncated or corrupt: refused";
  return `the bundle was refused: ${raucError(stderr)}`;
}

export async function inspect(sys: RaucSystem, bundlePath: string): Promise<Bundle> {
  const r = await rauc(sys, ["info", `--keyring=${sys.keyring}`, "--output-format=json", bundlePath]);
  // OpenSSL's own error lines go to stdout
  if (r.code !== 0) throw new UpdateRefused(refusal(`${r.stderr}\n${r.stdout}`));
  let info: { version?: unknown; compatible?: unknown };
  try {
    info = JSON.parse(r.stdout);
  } catch {
    throw new UpdateRefused("the bundle is truncated or corrupt: refused (rauc could not describe it)");
  }
  const version = typeof info.version === "string" ? info.version : "";
  const compatible = typeof info.compatible === "string" ? info.compatible : "";
  if (compatible !== sys.compatible)
    throw new UpdateRefused(
      `the bundle is built for ${compatible || "nothing named"}, this is ${sys.compatible}: refused`,
    );
  if (!version) throw new UpdateRefused("the bundle names no version: refused");
  return { version, compatible };
}
