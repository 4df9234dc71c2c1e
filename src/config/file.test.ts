// Where a TOML syntax error is: Bun's parser gives only a message, so file.ts finds the line from
// prefixes of the text. A person needs the line of the bad token, and for a value left open the
// line where it began.
import { expect, test } from "bun:test";
import { parseWithLine } from "./file.ts";

const where = (text: string) => {
  const r = parseWithLine(text);
  if (r.ok) throw new Error("parsed");
  return { line: r.line, start: r.start };
};

test("a bad token inside a multi-line array is named on its own line, with the array's first line", () => {
  expect(where('[dns]\nupstreams = [\n  "1.1.1.1",\n  "9.9.9.9",\n  8.8.8.8.8,\n]\nport = 53\n')).toEqual({
    line: 5,
    start: 2,
  });
  expect(where('q = [\n "a",\n "b" "c",\n]\n')).toEqual({ line: 3, start: 1 });
});

test("an array left open is named where the parser meets what cannot follow", () => {
  expect(where('[dns]\nupstreams = ["1.1.1.1"\n\n[misc]\nprivacylevel = 0\n')).toEqual({ line: 4, start: 2 });
});

test("an error within one line is named once", () => {
  expect(where("[dns]\nport = 1\nblockTTL = = 2\n")).toEqual({ line: 3, start: undefined });
  expect(where('a = "unterminated\nb = 1\n')).toEqual({ line: 1, start: undefined });
  expect(where('a = """\nmulti\n"""\nb = 1\nc = {\n')).toEqual({ line: 5, start: undefined });
});
