// The dashboard's one translation layer. A source string is the English text itself (gettext's way),
// so the code reads as it shows and a catalogue (src/web/i18n/<language>.json) maps each English text
// to its translation. Plurals follow the language's own rules (Intl.PluralRules: Polish has few and
// many, Arabic zero, two, few and many): their catalogue entry is an object by plural category.
//
// Rules for callers (the extraction script relies on them):
// - t()'s and plural()'s first argument is a string literal (or an object literal of literals);
// - they are called when rendering, never at module scope (the language may change after load);
// - a table of labels made at module scope marks each label with msg() and translates it with t(label)
//   when rendering.

type Vars = Record<string, string | number>;
type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };
type CatalogueEntry = string | PluralForms;
export type Catalogue = Record<string, CatalogueEntry>;

let language = "en";
let entries: Catalogue = {};
// The pseudo-locale (tests only): every text that went through the layer is wrapped in markers, so a
// browser test sees any shown text that did not (PSEUDO_OPEN … PSEUDO_CLOSE).
export const PSEUDO = "en-XA";
const PSEUDO_OPEN = "⟦";
const PSEUDO_CLOSE = "⟧";
let pseudo = false;
let numbers = new Intl.NumberFormat("en");
let plurals = new Intl.PluralRules("en");

/** Makes `tag` the language the dashboard speaks, with its catalogue ({} for English). */
export function useCatalogue(tag: string, catalogue: Catalogue): void {
  language = tag;
  entries = catalogue;
  pseudo = tag === PSEUDO;
  const intl = pseudo ? "en" : tag;
  numbers = new Intl.NumberFormat(intl);
  plurals = new Intl.PluralRules(intl);
}

/** The locale for Intl's formatters: the language, English for the pseudo-locale. */
export const intlLocale = (): string => (pseudo ? "en" : language);

/** `text` as the pseudo-locale shows what the locale layer made (in markers); itself otherwise. */
export const localized = (text: string): string => (pseudo ? `${PSEUDO_OPEN}${text}${PSEUDO_CLOSE}` : text);

function fill(source: string, vars?: Vars): string {
  const text = localized(source);
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = vars[name];
    if (value === undefined) return whole;
    return typeof value === "number" ? numbers.format(value) : value;
  });
}

/** `source` (English) in the current language, with `{name}` filled from `vars`. */
export function t(source: string, vars?: Vars): string {
  const entry = entries[source];
  return fill(typeof entry === "string" ? entry : source, vars);
}

/**
 * A text the server sent, in the current language where the catalogue has it (the API's own error
 * messages, which stay English: scripts/i18n-extract.ts takes the fixed ones from src/api/core/errors.ts),
 * else as sent.
 */
export function known(text: string): string {
  const entry = entries[text];
  return typeof entry === "string" ? entry : text;
}

/**
 * `source` in the current language with `{name}` replaced by the element `nodes[name]` (a link or code
 * inside a sentence), as the list of pieces a component renders.
 */
export function tx<N>(source: string, nodes: Record<string, N>): Array<string | N> {
  const entry = entries[source];
  const text = typeof entry === "string" ? entry : source;
  // each piece of text is marked on its own in the pseudo-locale: the elements between are data
  return text
    .split(/\{(\w+)\}/)
    .map((piece, i) => (i % 2 === 1 ? (nodes[piece] ?? `{${piece}}`) : piece.trim() ? localized(piece) : piece));
}

/** The form of `forms` that `count` takes in the current language; `{count}` is the number. */
export function plural(count: number, forms: { one: string; other: string }, vars?: Vars): string {
  const entry = entries[forms.other];
  const category = plurals.select(count);
  const text =
    typeof entry === "object" ? (entry[category] ?? entry.other) : category === "one" ? forms.one : forms.other;
  return fill(text, { ...vars, count });
}

/** Marks an English text for the catalogue where t() runs later (a label table made at module scope). */
export const msg = (source: string): string => source;
