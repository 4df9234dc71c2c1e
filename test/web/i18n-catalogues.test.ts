// The catalogues against the source (scripts/i18n-extract.ts): every key the dashboard shows is in each
// catalogue, none is left over, and no t() is given text built at run time, which no catalogue can hold.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { catalogueTags, check, extract, readCatalogue } from "../../scripts/i18n-extract.ts";

const source = extract();

test("every catalogue has every source key, and no other", () => {
  expect(catalogueTags()).toContain("de");
  expect(check(source)).toEqual([]);
});

test("a catalogue that lacks a key of the source fails the check, naming the key", () => {
  const de = { ...readCatalogue("de") };
  delete de["Query log"];
  de["Gone from the source"] = "Nicht mehr da";
  expect(check(source, { de })).toEqual([
    'de.json lacks "Query log"',
    'de.json has "Gone from the source", which no source uses',
  ]);
});

test("a plural key needs its forms, and t() takes a literal or a msg() label", () => {
  const dir = mkdtempSync(join(tmpdir(), "moat-i18n-"));
  try {
    const file = join(dir, "page.tsx");
    writeFileSync(
      file,
      [
        'import { msg, plural, t } from "./i18n.ts";',
        'const LABELS = { a: msg("Label A") };',
        "export const ok = (n: number, on: boolean) => [",
        '  t("Plain"), t(on ? "On" : "Off"), t(LABELS.a), plural(n, { one: "{count} row", other: "{count} rows" }),',
        "];",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of the file under test, a template in it
        'export const bad = (name: string) => [t(`Hello ${name}`), t("Hello " + name)];',
      ].join("\n"),
    );
    const x = extract([file]);
    expect([...x.keys.keys()]).toEqual(["Label A", "Off", "On", "Plain", "{count} rows"]);
    const rule = /page\.tsx:6: t\(\)'s first argument must be a string literal or a msg\(\) label$/;
    expect(x.problems).toEqual([expect.stringMatching(rule), expect.stringMatching(rule)]);
    const plain = { Plain: "x", On: "x", Off: "x", "Label A": "x", "{count} rows": "x rows" };
    expect(check({ keys: x.keys, problems: [] }, { xx: plain })).toEqual([
      'xx.json: "{count} rows" is a plural; give its forms by plural category',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
