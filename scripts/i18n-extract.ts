// The dashboard's source strings: every literal given to t(), tx(), plural() and msg() under src/web/ui/
// (src/web/ui/i18n.ts says the rules), and the API's error messages a person can cause: the fixed ones of
// src/api/core/errors.ts and every literal message a route gives `Errors.<kind>("…")` under src/api/. A catalogue (src/web/i18n/<tag>.json) maps each to its translation.
//   bun scripts/i18n-extract.ts               the source list, as JSON (English → English; a plural → its forms)
//   bun scripts/i18n-extract.ts --check       exit 1 listing each key a catalogue lacks, each key it has that
//                                             the source no longer has, and each t() whose text is not a literal
//   bun scripts/i18n-extract.ts --missing de  the keys de.json lacks, as JSON (English → ""), to fill in
import ts from "typescript";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const UI = join(ROOT, "src/web/ui");
/** the API's error messages (the dashboard shows them through known(); the API itself stays English) */
const API = join(ROOT, "src/api");
export const CATALOGUES = join(ROOT, "src/web/i18n");

type Forms = { one: string; other: string };
export interface Extracted {
  /** English text → itself, or a plural's forms (keyed by its `other` form) */
  keys: Map<string, string | Forms>;
  /** "file:line: why" for each call the catalogue cannot follow */
  problems: string[];
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && e.name !== "i18n.ts" ? [p] : [];
  });
}

const literal = (n: ts.Node | undefined): string | undefined =>
  n && (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) ? n.text : undefined;

/** Collects the keys of `files` (all of src/web/ui by default). */
export function extract(files = [...sources(UI), ...sources(API)]): Extracted {
  const keys = new Map<string, string | Forms>();
  const problems: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const where = (n: ts.Node) =>
      `${relative(ROOT, file)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
    const visit = (n: ts.Node): void => {
      const api = file.startsWith(API);
      if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === "ApiError") {
        const message = literal(n.arguments?.[2]);
        if (message !== undefined) keys.set(message, message);
      } else if (
        api &&
        ts.isCallExpression(n) &&
        ts.isPropertyAccessExpression(n.expression) &&
        ts.isIdentifier(n.expression.expression) &&
        n.expression.expression.text === "Errors"
      ) {
        // a route's own message (Errors.badRequest("Invalid domain", hint)); one built at run time stays English
        const message = literal(n.arguments[0]);
        if (message !== undefined) keys.set(message, message);
      } else if (!api && ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
        const name = n.expression.text;
        const first = n.arguments[0];
        if (name === "msg") {
          const s = literal(first);
          if (s === undefined) problems.push(`${where(n)}: msg()'s argument must be a string literal`);
          else keys.set(s, s);
        } else if (name === "t" || name === "tx") {
          // a literal (a ? "x" : "y" gives both), or a label marked with msg() where it was made (a name
          // or a member: `t(page.title)`); never text built at run time, which no catalogue can hold
          const texts = (e: ts.Expression | undefined): string[] | undefined => {
            if (!e) return undefined;
            if (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) return texts(e.expression);
            const s = literal(e);
            if (s !== undefined) return [s];
            if (ts.isConditionalExpression(e)) {
              const a = texts(e.whenTrue);
              const b = texts(e.whenFalse);
              return a && b ? [...a, ...b] : undefined;
            }
            if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) return [];
            if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken)
              return texts(e.right);
            return undefined;
          };
          const found = texts(first);
          if (found === undefined)
            problems.push(`${where(n)}: ${name}()'s first argument must be a string literal or a msg() label`);
          else for (const s of found.filter(Boolean)) keys.set(s, s);
        } else if (name === "plural") {
          const forms = n.arguments[1];
          const get = (key: string) =>
            forms && ts.isObjectLiteralExpression(forms)
              ? literal(
                  forms.properties.find(
                    (p): p is ts.PropertyAssignment =>
                      ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && p.name.text === key,
                  )?.initializer,
                )
              : undefined;
          const one = get("one");
          const other = get("other");
          if (one === undefined || other === undefined)
            problems.push(`${where(n)}: plural()'s forms must be an object literal of string literals`);
          else keys.set(other, { one, other });
        }
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { keys: new Map([...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), problems };
}

export const catalogueTags = (): string[] =>
  readdirSync(CATALOGUES)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -".json".length))
    .sort();

export function readCatalogue(tag: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(CATALOGUES, `${tag}.json`), "utf8")) as Record<string, unknown>;
}

const allCatalogues = () => Object.fromEntries(catalogueTags().map((tag) => [tag, readCatalogue(tag)]));

/** What is wrong with the catalogues (tag → entries) against the source: one line each. */
export function check(x = extract(), catalogues = allCatalogues()): string[] {
  const found = [...x.problems];
  for (const [tag, cat] of Object.entries(catalogues)) {
    for (const [key, source] of x.keys) {
      const entry = cat[key];
      if (entry === undefined || entry === "") found.push(`${tag}.json lacks ${JSON.stringify(key)}`);
      else if (typeof source === "object" && typeof entry !== "object")
        found.push(`${tag}.json: ${JSON.stringify(key)} is a plural; give its forms by plural category`);
    }
    for (const key of Object.keys(cat))
      if (!x.keys.has(key)) found.push(`${tag}.json has ${JSON.stringify(key)}, which no source uses`);
  }
  return found;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const x = extract();
  if (args[0] === "--check") {
    const found = check(x);
    for (const f of found) console.error(f);
    if (found.length) process.exit(1);
    console.log(`${x.keys.size} source keys, every catalogue complete: ${catalogueTags().join(" ")}`);
  } else if (args[0] === "--missing") {
    const tag = args[1];
    if (!tag) {
      console.error("usage: bun scripts/i18n-extract.ts --missing <tag>");
      process.exit(2);
    }
    let cat: Record<string, unknown> = {};
    try {
      cat = readCatalogue(tag);
    } catch {
      // a new language: every key is missing
    }
    const missing: Record<string, string | Record<string, string>> = {};
    for (const [key, source] of x.keys)
      if (cat[key] === undefined || cat[key] === "")
        missing[key] = typeof source === "object" ? { one: "", other: "" } : "";
    console.log(JSON.stringify(missing, null, 2));
  } else {
    console.log(JSON.stringify(Object.fromEntries(x.keys), null, 2));
  }
}
