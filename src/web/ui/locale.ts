// Which language the dashboard speaks: the one chosen in this browser, else the first of the browser's
// languages (navigator.languages) that has a catalogue, else English. A catalogue is fetched when it is
// needed (build-ui.ts makes each one an asset and lists them in the page's `#moat-i18n`).
import { type Catalogue, PSEUDO, useCatalogue } from "./i18n.ts";
import { Store } from "./store.ts";

/** Every language the dashboard can speak, by its own name (a person looks for their language's name). */
const LANGUAGES: ReadonlyArray<{ tag: string; name: string }> = [
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
const RIGHT_TO_LEFT = new Set(["ar", "fa", "he", "ur"]);
const KEY = "moat.language";

let urls: Record<string, string> | undefined;
function catalogueUrls(): Record<string, string> {
  urls ??= JSON.parse(document.getElementById("moat-i18n")?.textContent || "{}") as Record<string, string>;
  return urls;
}

/** The languages this build has a catalogue for (English always). */
export const offered = () => LANGUAGES.filter((l) => l.tag === "en" || l.tag in catalogueUrls());

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

/** Speaks `tag` from now on (its catalogue fetched first); `remember` keeps the choice in this browser. */
export async function setLanguage(tag: string, remember: boolean): Promise<void> {
  const url = catalogueUrls()[tag];
  const catalogue: Catalogue = url ? ((await (await fetch(`/admin/assets/${url}`)).json()) as Catalogue) : {};
  useCatalogue(tag, catalogue);
  document.documentElement.lang = tag === PSEUDO ? "en" : tag;
  document.documentElement.dir = RIGHT_TO_LEFT.has(tag.split("-")[0]!) ? "rtl" : "ltr";
  if (remember) localStorage.setItem(KEY, tag);
  language.set(tag);
}
