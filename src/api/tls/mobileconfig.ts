// An Apple configuration profile (.mobileconfig) that sets a device's DNS to Moat's encrypted DNS,
// as AdGuard Home offers one: a com.apple.dnsSettings.managed payload (Apple's "DNS Settings"
// payload: DNSProtocol HTTPS with ServerURL, or TLS with ServerName, and ServerAddresses so the
// device needs no lookup to reach Moat) and, when Moat's own authority signed the certificate, that
// authority as a com.apple.security.root payload so the device trusts it in one step.
// https://developer.apple.com/documentation/devicemanagement/dnssettings
import { createHash, X509Certificate } from "node:crypto";

export interface ProfileInput {
  proto: "doh" | "dot";
  /** the DoH URL (proto doh) */
  url: string;
  /** the DoT server name (proto dot) */
  serverName: string;
  addresses: string[];
  /** Moat's authority (PEM) when it signed the served certificate; null for the user's own certificate */
  caPem: string | null;
  /** shown on the device: the name of the profile */
  label: string;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const str = (k: string, v: string) => `<key>${k}</key><string>${esc(v)}</string>`;

/**
 * A UUID derived from the profile's content, so downloading the same profile twice gives the same
 * identifiers and the device replaces the installed one instead of adding a second.
 */
function uuidOf(text: string): string {
  const h = createHash("sha256").update(text).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`.toUpperCase();
}

export function mobileconfig(p: ProfileInput): string {
  const server = p.proto === "doh" ? p.url : p.serverName;
  const dnsUuid = uuidOf(`dns ${p.proto} ${server}`);
  const dns = [
    "<dict>",
    "<key>DNSSettings</key><dict>",
    str("DNSProtocol", p.proto === "doh" ? "HTTPS" : "TLS"),
    p.proto === "doh" ? str("ServerURL", p.url) : str("ServerName", p.serverName),
    `<key>ServerAddresses</key><array>${p.addresses.map((a) => `<string>${esc(a)}</string>`).join("")}</array>`,
    "</dict>",
    str("PayloadDescription", `Sends this device's DNS to Moat over ${p.proto === "doh" ? "HTTPS" : "TLS"}`),
    str("PayloadDisplayName", p.label),
    str("PayloadIdentifier", `com.apple.dnsSettings.managed.${dnsUuid}`),
    str("PayloadType", "com.apple.dnsSettings.managed"),
    str("PayloadUUID", dnsUuid),
    "<key>PayloadVersion</key><integer>1</integer>",
    "<key>ProhibitDisablement</key><false/>",
    "</dict>",
  ];
  const payloads = [dns.join("\n")];
  if (p.caPem) {
    const der = new X509Certificate(p.caPem).raw.toString("base64");
    const caUuid = uuidOf(`ca ${der}`);
    payloads.push(
      [
        "<dict>",
        str("PayloadCertificateFileName", "moat-ca.crt"),
        `<key>PayloadContent</key><data>${der}</data>`,
        str("PayloadDescription", "Moat's own certificate authority: it signs the certificate of Moat's HTTPS and DoT"),
        str("PayloadDisplayName", "Moat certificate authority"),
        str("PayloadIdentifier", `com.apple.security.root.${caUuid}`),
        str("PayloadType", "com.apple.security.root"),
        str("PayloadUUID", caUuid),
        "<key>PayloadVersion</key><integer>1</integer>",
        "</dict>",
      ].join("\n"),
    );
  }
  const top = uuidOf(`profile ${p.proto} ${server} ${p.caPem ?? ""}`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    "<dict>",
    `<key>PayloadContent</key><array>\n${payloads.join("\n")}\n</array>`,
    str("PayloadDescription", `Moat's encrypted DNS: ${server}`),
    str("PayloadDisplayName", p.label),
    str("PayloadIdentifier", `moat.dns.${top}`),
    "<key>PayloadRemovalDisallowed</key><false/>",
    str("PayloadType", "Configuration"),
    str("PayloadUUID", top),
    "<key>PayloadVersion</key><integer>1</integer>",
    "</dict>",
    "</plist>",
    "",
  ].join("\n");
}
