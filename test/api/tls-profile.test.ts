// GET /api/tls and GET /api/tls/mobileconfig: the certificate in force as HTTPS serves it, and an
// Apple configuration profile that an independent plist parser (Python's plistlib) reads as Apple
// documents the DNS Settings payload (DNSProtocol, ServerURL / ServerName, ServerAddresses), with
// Moat's own authority as a trusted root.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { startTlsMoat, servedFingerprint, type TlsMoat } from "../tls/helpers.ts";

const PASSWORD = "profile password";
let t: TlsMoat;
let sid = "";

beforeAll(async () => {
  t = await startTlsMoat({ FTLCONF_webserver_api_password: PASSWORD });
  const r = await t.moat.api("/api/auth", { method: "POST", body: JSON.stringify({ password: PASSWORD }) });
  sid = ((await r.json()) as { session: { sid: string } }).session.sid;
});

afterAll(async () => {
  await t?.moat.dispose();
});

const get = (path: string, withSid = true) => t.moat.api(path, { headers: withSid ? { sid } : {} });

type Plist = {
  PayloadType: string;
  PayloadContent: Array<Record<string, unknown> & { PayloadType: string }>;
};

/** the profile as Python's plistlib reads it (bytes as base64), so a malformed plist fails here */
async function parse(xml: string): Promise<Plist> {
  const p = Bun.spawn(
    [
      "python3",
      "-c",
      "import sys,json,plistlib,base64;d=plistlib.loads(sys.stdin.buffer.read());" +
        "print(json.dumps(d,default=lambda b:base64.b64encode(b).decode()))",
    ],
    { stdin: new TextEncoder().encode(xml), stdout: "pipe", stderr: "pipe" },
  );
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  if ((await p.exited) !== 0) throw new Error(`plistlib refused the profile: ${err}`);
  return JSON.parse(out) as Plist;
}

test("GET /api/tls shows the certificate HTTPS serves, the DoT port and the HTTPS port; it needs a session", async () => {
  expect((await get("/api/tls", false)).status).toBe(401);
  const r = await get("/api/tls");
  expect(r.status).toBe(200);
  const { tls } = (await r.json()) as {
    tls: {
      certificate: { names: string[]; notAfter: string; fingerprint: string; user: boolean };
      dot: { port: number };
      doh: { ports: number[] };
      name: string;
      clientIds: boolean;
    };
  };
  expect(tls.certificate.fingerprint).toBe(await servedFingerprint(t.httpsPort));
  expect(tls.certificate.names).toContain("*.pi.hole");
  expect(Date.parse(tls.certificate.notAfter)).toBeGreaterThan(Date.now());
  expect(tls.certificate.user).toBe(false);
  expect(tls.dot.port).toBe(t.dotPort);
  expect(tls.doh.ports).toEqual([t.httpsPort]);
  expect(tls.name).toBe("pi.hole");
  expect(tls.clientIds).toBe(true);
});

test("the DoH profile for a client ID parses, names its URL and carries Moat's authority as a root", async () => {
  const r = await get("/api/tls/mobileconfig?proto=doh&client=Kid-Tablet");
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toBe("application/x-apple-aspen-config");
  expect(r.headers.get("content-disposition")).toContain("moat-doh-kid-tablet.mobileconfig");
  const p = await parse(await r.text());
  expect(p.PayloadType).toBe("Configuration");
  const dns = p.PayloadContent.find((x) => x.PayloadType === "com.apple.dnsSettings.managed")!;
  const settings = dns.DNSSettings as Record<string, unknown>;
  expect(settings.DNSProtocol).toBe("HTTPS");
  expect(settings.ServerURL).toBe(`https://pi.hole:${t.httpsPort}/dns-query/kid-tablet`);
  expect(Array.isArray(settings.ServerAddresses)).toBe(true);
  const root = p.PayloadContent.find((x) => x.PayloadType === "com.apple.security.root")!;
  const ca = new X509Certificate(Buffer.from(root.PayloadContent as string, "base64"));
  expect(ca.fingerprint256).toBe(new X509Certificate(readFileSync(t.caFile)).fingerprint256);
});

test("the DoT profile names <id>.pi.hole; a bad client ID or a missing session is refused", async () => {
  const p = await parse(await (await get("/api/tls/mobileconfig?proto=dot&client=phone")).text());
  const dns = p.PayloadContent.find((x) => x.PayloadType === "com.apple.dnsSettings.managed")!;
  expect(dns.DNSSettings).toMatchObject({ DNSProtocol: "TLS", ServerName: "phone.pi.hole" });
  const bad = await get("/api/tls/mobileconfig?proto=dot&client=no_such%20id");
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { message: string } }).error.message).toBe("Not a client ID");
  expect((await get("/api/tls/mobileconfig?proto=smtp")).status).toBe(400);
  expect((await get("/api/tls/mobileconfig", false)).status).toBe(401);
});

test("regenerating changes what GET /api/tls shows", async () => {
  const before = ((await (await get("/api/tls")).json()) as { tls: { certificate: { fingerprint: string } } }).tls;
  const r = await t.moat.api("/api/action/tls/regenerate", { method: "POST", headers: { sid } });
  expect(r.status).toBe(200);
  const after = ((await (await get("/api/tls")).json()) as { tls: { certificate: { fingerprint: string } } }).tls;
  expect(after.certificate.fingerprint).not.toBe(before.certificate.fingerprint);
  expect(after.certificate.fingerprint).toBe(await servedFingerprint(t.httpsPort));
});
