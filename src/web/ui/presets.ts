// Well-known public resolvers and block lists offered as one-click choices; the notes are msg() labels.
import { msg } from "./i18n.ts";

export const UPSTREAM_PRESETS: Array<{ name: string; note: string; v4: string[]; v6: string[] }> = [
  {
    name: "Quad9",
    note: msg("filters malware, DNSSEC, no logging"),
    v4: ["9.9.9.9", "149.112.112.112"],
    v6: ["2620:fe::fe", "2620:fe::9"],
  },
  {
    name: "Cloudflare",
    note: msg("fast, DNSSEC"),
    v4: ["1.1.1.1", "1.0.0.1"],
    v6: ["2606:4700:4700::1111", "2606:4700:4700::1001"],
  },
  {
    name: "Google",
    note: msg("DNSSEC"),
    v4: ["8.8.8.8", "8.8.4.4"],
    v6: ["2001:4860:4860::8888", "2001:4860:4860::8844"],
  },
  {
    name: "OpenDNS",
    note: msg("Cisco, DNSSEC"),
    v4: ["208.67.222.222", "208.67.220.220"],
    v6: ["2620:119:35::35", "2620:119:53::53"],
  },
];

export const LIST_PRESETS: Array<{ name: string; address: string }> = [
  {
    name: "StevenBlack's Unified Hosts (Pi-hole's default)",
    address: "https://raw.githubusercontent.com/StevenBlack/hosts/master/hosts",
  },
];
