// Which language the dashboard speaks: the one chosen in this browser, else the first of the browser's
// languages (navigator.languages) that has a catalogue, else English. A catalogue is fetched when it is
// needed (build-ui.ts makes each one an asset and lists them in the page's `#moat-i18n`).
import { type Catalogue, PSEUDO, useCatalogue } from "./i18n.ts";
import { Store } from "./store.ts";

/**
 * The languages' own names (a person looks for their language's name) where Intl's would read less well;
 * any other catalogue is offered under the name Intl.DisplayNames gives it, so a new language is one file.
 */
const NAMES: ReadonlyArray<{ tag: string; name: string }> = [
  { tag: "en", name: "English" },
  { tag: "de", name: "Deutsch" },
  { tag: "fr", name: "Français" },
  { tag: "es", name: "Español" },
  { tag: "it", name: "Italiano" },
  { tag: "nl", name: "Nederlands" },
  { tag: "pt-BR", name: "Português (Brasil)" },
  { tag: "pl", name: "Polski" },
  { tag: "zh-CN", name: "简体中文" },
  { tag: "ja", name: "日本語" },
  { tag: "ar", name: "العربية" },
];
/** the scripts written right to left, by language (the first part of the tag) */
const RIGHT_TO_LEFT = new Set(["ar", "ckb", "dv", "fa", "he", "ps", "sd", "ug", "ur", "yi"]);
const KEY = "moat.language";

let urls: Record<string, string> | undefined;
function catalogueUrls(): Record<string, string> {
  urls ??= JSON.parse(document.getElementById("moat-i18n")?.textContent || "{}") as Record<string, string>;
  return urls;
}

function ownName(tag: string): string {
  const known = NAMES.find((l) => l.tag === tag);
  if (known) return known.name;
  try {
    return new Intl.DisplayNames([tag], { type: "language" }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** The languages this build has a catalogue for (English always): those of NAMES in its order, then the rest. */
export function offered(): Array<{ tag: string; name: string }> {
  const files = Object.keys(catalogueUrls());
  const named = NAMES.filter((l) => l.tag === "en" || files.includes(l.tag));
  const others = files.filter((tag) => !named.some((l) => l.tag === tag)).sort();
  return [...named, ...others.map((tag) => ({ tag, name: ownName(tag) }))];
}

/** The language shown now, set once its catalogue is in. */
export const language = new Store<string>("en");

/** The tag of `offered()` that best answers a browser's language (`de-AT` → `de`, `pt` → `pt-BR`). */
function match(wanted: string): string | undefined {
  const tags = offered().map((l) => l.tag);
  const lower = wanted.toLowerCase();
  return tags.find((t) => t.toLowerCase() === lower) ?? tags.find((t) => t.split("-")[0] === lower.split("-")[0]);
}

/** The language to start with: this browser's choice, else its languages in order, else English. */
export function preferred(): string {
  const stored = localStorage.getItem(KEY);
  if (stored === PSEUDO) return stored;
  if (stored && match(stored)) return match(stored)!;
  for (const wanted of navigator.languages ?? []) {
    const tag = match(wanted);
    if (tag) return tag;
  }
  return "en";
}

/**
 * How long a catalogue may take: the first picture waits for it, so a fetch that stalls (a dropped
 * connection, a server busy with something else) must end, and the page speaks English instead.
 */
const CATALOGUE_TIMEOUT_MS = 10_000;

async function fetchCatalogue(url: string): Promise<Catalogue> {
  const res = await fetch(`/admin/assets/${url}`, { signal: AbortSignal.timeout(CATALOGUE_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return (await res.json()) as Catalogue;
}

/**
 * Speaks `tag` from now on (its catalogue fetched first); `remember` keeps the choice in this browser.
 * Rejects, leaving the language as it was, when the catalogue does not come.
 */
export async function setLanguage(tag: string, remember: boolean): Promise<void> {
  const url = catalogueUrls()[tag];
  const catalogue: Catalogue = url ? await fetchCatalogue(url) : {};
  useCatalogue(tag, catalogue);
  document.documentElement.lang = tag === PSEUDO ? "en" : tag;
  document.documentElement.dir = RIGHT_TO_LEFT.has(tag.split("-")[0]!) ? "rtl" : "ltr";
  if (remember) localStorage.setItem(KEY, tag);
  language.set(tag);
}
