// Safe search per group: the engines that document a DNS way to force their safe mode, in one table. For
// each of the engine's host names Moat answers a CNAME to the engine's target, with the target's own
// records resolved through the upstreams (src/dns/safesearch.ts; policy.ts judges a query), as each engine's documentation asks of a
// network's resolver.
import { resolveCombos, type DomainSetData } from "../../filter/domainset.ts";
import { ComboTable, DomainSetBuilder } from "../../filter/domainset-build.ts";
import { nameToWire } from "../../net/dns-name.ts";

interface SafeSearchEngine {
  /** stable key stored per group */
  id: string;
  /** stable number: the id of its names in the snapshot's set */
  code: number;
  name: string;
  /** the CNAME target the engine documents */
  target: string;
  hosts: readonly string[];
  /** where the engine documents it */
  doc: string;
}

// www.google.<every country domain> (https://www.google.com/supported_domains)
const GOOGLE_DOMAINS =
  `com ad ae com.af com.ag al am co.ao com.ar as at com.au az ba com.bd be bf bg com.bh bi bj com.bn com.bo
com.br bs bt co.bw by com.bz ca cat cd cf cg ch ci co.ck cl cm cn com.co co.cr com.cu cv com.cy cz de dj dk dm com.do dz
com.ec ee com.eg es com.et fi com.fj fm fr ga ge gg com.gh com.gi gl gm gr com.gt gy com.hk hn hr ht hu co.id ie co.il im
co.in iq is it je com.jm jo co.jp co.ke com.kh ki kg co.kr com.kw kz la com.lb li lk co.ls lt lu lv com.ly co.ma md me mg
mk ml com.mm mn com.mt mu mv mw com.mx com.my co.mz com.na com.ng com.ni ne nl no com.np nr nu co.nz com.om com.pa com.pe
com.pg com.ph com.pk pl pn com.pr ps pt com.py com.qa ro rs ru rw com.sa com.sb sc se com.sg sh si sk com.sl sn so sm sr
st com.sv td tg co.th com.tj tl tm tn to com.tr tt com.tw co.tz com.ua co.ug co.uk com.uy co.uz com.vc co.ve co.vi com.vn
vu ws co.za co.zm co.zw`
    .split(/\s+/)
    .filter(Boolean);

const YOUTUBE_HOSTS = [
  "www.youtube.com",
  "m.youtube.com",
  "youtubei.googleapis.com",
  "youtube.googleapis.com",
  "www.youtube-nocookie.com",
];

export const SAFE_SEARCH_ENGINES: readonly SafeSearchEngine[] = [
  {
    id: "google",
    code: 1,
    name: "Google",
    target: "forcesafesearch.google.com",
    hosts: GOOGLE_DOMAINS.flatMap((d) => [`www.google.${d}`, `google.${d}`]),
    doc: "https://support.google.com/websearch/answer/186669",
  },
  {
    id: "bing",
    code: 2,
    name: "Bing",
    target: "strict.bing.com",
    hosts: ["www.bing.com", "bing.com"],
    doc: "https://help.bing.microsoft.com/#apex/bing/en-us/10003/0 (Block adult content with SafeSearch: map www.bing.com to strict.bing.com)",
  },
  {
    id: "duckduckgo",
    code: 3,
    name: "DuckDuckGo",
    target: "safe.duckduckgo.com",
    hosts: ["duckduckgo.com", "www.duckduckgo.com", "start.duckduckgo.com"],
    doc: "https://duckduckgo.com/duckduckgo-help-pages/features/safe-search/ (safe.duckduckgo.com)",
  },
  {
    id: "youtube",
    code: 4,
    name: "YouTube (strict)",
    target: "restrict.youtube.com",
    hosts: YOUTUBE_HOSTS,
    doc: "https://support.google.com/a/answer/6214622",
  },
  {
    id: "youtube-moderate",
    code: 5,
    name: "YouTube (moderate)",
    target: "restrictmoderate.youtube.com",
    hosts: YOUTUBE_HOSTS,
    doc: "https://support.google.com/a/answer/6214622",
  },
];

const MODERATE = "youtube-moderate";

export function safeSearchEngine(id: string): SafeSearchEngine | undefined {
  return SAFE_SEARCH_ENGINES.find((e) => e.id === id);
}

/**
 * The groups' picks as two exact-name sets (id = engine code): YouTube's moderate mode names the same
 * hosts as its strict one, and a set reports one id per name, so moderate has a set of its own that the
 * DNS thread asks only when the first has no hit (strict wins for a client in both kinds of group).
 */
export function safeSearchSetData(
  picks: ReadonlyArray<{ g: number; engine: string }>,
  bitOf: ReadonlyMap<number, number>,
  words: number,
): { main: DomainSetData; moderate: DomainSetData } {
  const masks = new Map<number, Uint32Array>();
  for (const p of picks) {
    const e = safeSearchEngine(p.engine);
    const bit = bitOf.get(p.g);
    if (!e || bit === undefined) continue;
    let m = masks.get(e.code);
    if (!m) masks.set(e.code, (m = new Uint32Array(words)));
    m[bit >>> 5]! |= 1 << (bit & 31);
  }
  const build = (moderate: boolean) => {
    const b = new DomainSetBuilder(new ComboTable());
    for (const e of SAFE_SEARCH_ENGINES) {
      if ((e.id === MODERATE) !== moderate || !masks.has(e.code)) continue;
      for (const h of e.hosts) {
        const w = nameToWire(h);
        if (w) b.add(w, e.code);
      }
    }
    return resolveCombos(b.finish(), words, (code) => masks.get(code));
  };
  return { main: build(false), moderate: build(true) };
}
