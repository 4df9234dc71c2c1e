// A bundle uploaded over HTTPS (the dashboard's usual way in) is not cut off at 64 MiB: Bun.serve's
// cap on the HTTPS ports follows update.maxDownload, so a real bundle of a few hundred MiB reaches the
// route, which checks it. The upload here is 80 MiB of noise sent by curl: it must arrive whole and be
// refused for what it is (not a bundle), not with 413 or a connection reset.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { run, startTlsMoat, type TlsMoat } from "../tls/helpers.ts";
import { hasRauc, UpdateFixture } from "./fixture.ts";

const can = hasRauc && Bun.which("dbus-daemon") !== null && Bun.which("curl") !== null;
const SIZE = 80 * 1024 * 1024;

let fx: UpdateFixture;
let t: TlsMoat;
let dir: string;

beforeAll(async () => {
  if (!can) return;
  fx = new UpdateFixture();
  fx.systemConf();
  await fx.startService();
  t = await startTlsMoat({ FTLCONF_update_system: fx.slots.conf, ...fx.busEnv });
  dir = mkdtempSync(join(tmpdir(), "moat-https-upload-"));
});

afterAll(async () => {
  if (!can) return;
  await t?.moat.dispose();
  await fx?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test.skipIf(!can)(
  "an 80 MiB upload over HTTPS reaches the update route and is judged by its content",
  async () => {
    const file = join(dir, "noise.raucb");
    const noise = new Uint8Array(SIZE);
    for (let o = 0; o < SIZE; o += 65536) crypto.getRandomValues(noise.subarray(o, o + 65536));
    writeFileSync(file, noise);
    const r = await run(
      [
        "curl",
        "-sS",
        "--cacert",
        t.caFile,
        "--resolve",
        `pi.hole:${t.httpsPort}:127.0.0.1`,
        "-o",
        "-",
        "-w",
        "\n%{http_code} %{size_upload}",
        "-F",
        `file=@${file}`,
        `https://pi.hole:${t.httpsPort}/api/action/update`,
      ],
      60_000,
    );
    const [status, uploaded] = r.out.trim().split("\n").at(-1)!.split(" ");
    expect(status).toBe("400");
    expect(Number(uploaded)).toBeGreaterThan(SIZE);
    const body = JSON.parse(r.out.trim().split("\n").slice(0, -1).join("\n")) as {
      error: { key: string; hint: string };
    };
    expect(body.error.key).toBe("bad_request");
    expect(body.error.hint.length).toBeGreaterThan(10);
    const info = (await (await t.moat.api("/api/info/update")).json()) as { last: { ok: boolean; message: string } };
    expect(info.last.ok).toBe(false);
    expect(info.last.message).toBe(body.error.hint);
  },
  90_000,
);
