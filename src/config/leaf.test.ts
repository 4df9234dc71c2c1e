// coerce() on its own: how raw JSON/TOML values and environment-variable text become a leaf's value,
// and the reason texts when they cannot (Pi-hole's "not of type …" wording).
import { expect, test } from "bun:test";
import {
  type AnyLeaf,
  type Leaf,
  bool,
  coerce as coerceAny,
  float,
  int,
  isLeaf,
  oneOf,
  secret,
  str,
  strings,
  uint,
} from "./leaf.ts";

// the config tree holds its leaves as AnyLeaf (schema.ts); a typed leaf is one too
const coerce = <T>(leaf: Leaf<T>, raw: unknown, fromText = false) => coerceAny(leaf as AnyLeaf, raw, fromText);
const ok = (value: unknown) => ({ ok: true as const, value });
const no = (reason: string) => ({ ok: false as const, reason });

test("bool: a JSON boolean; from text also yes/no, on/off, 1/0", () => {
  const leaf = bool(false, "");
  expect(coerce(leaf, true)).toEqual(ok(true));
  expect(coerce(leaf, "true")).toEqual(no("not of type bool"));
  expect(coerce(leaf, 1)).toEqual(no("not of type bool"));
  for (const t of ["true", " YES ", "1", "on"]) expect(coerce(leaf, t, true)).toEqual(ok(true));
  for (const t of ["false", "No", "0", "OFF"]) expect(coerce(leaf, t, true)).toEqual(ok(false));
  expect(coerce(leaf, "maybe", true)).toEqual(no("not of type bool"));
});

test("int and uint: whole numbers within their bounds", () => {
  const port = int(53, "", { min: 1, max: 65535 });
  expect(coerce(port, 5353)).toEqual(ok(5353));
  expect(coerce(port, 10n)).toEqual(ok(10));
  expect(coerce(port, " 8080 ", true)).toEqual(ok(8080));
  expect(coerce(port, "8080")).toEqual(no("not of type integer"));
  expect(coerce(port, 1.5)).toEqual(no("not of type integer"));
  expect(coerce(port, Number.NaN)).toEqual(no("not of type integer"));
  expect(coerce(port, "", true)).toEqual(no("not of type integer"));
  expect(coerce(port, "12abc", true)).toEqual(no("not of type integer"));
  expect(coerce(port, 0)).toEqual(no("must be at least 1"));
  expect(coerce(port, 65536)).toEqual(no("must be at most 65535"));
  const count = uint(10, "", { max: 100 });
  expect(coerce(count, 0)).toEqual(ok(0));
  expect(coerce(count, -1)).toEqual(no("not of type unsigned integer"));
  expect(coerce(count, 101)).toEqual(no("must be at most 100"));
});

test("float: any finite number", () => {
  const leaf = float(0.5, "");
  expect(coerce(leaf, 2.25)).toEqual(ok(2.25));
  expect(coerce(leaf, "-1e3", true)).toEqual(ok(-1000));
  expect(coerce(leaf, Number.POSITIVE_INFINITY)).toEqual(no("not of type number"));
  expect(coerce(leaf, null)).toEqual(no("not of type number"));
});

test("string, password and enum", () => {
  expect(coerce(str("", ""), "x")).toEqual(ok("x"));
  expect(coerce(str("", ""), 5)).toEqual(no("not of type string"));
  const pw = secret("");
  expect(pw.flags.writeOnly).toBe(true);
  expect(coerce(pw, "hunter2")).toEqual(ok("hunter2"));
  expect(coerce(pw, false)).toEqual(no("not of type string"));
  const mode = oneOf(["NULL", "NXDOMAIN"] as const, "NULL", "");
  expect(coerce(mode, "NXDOMAIN")).toEqual(ok("NXDOMAIN"));
  expect(coerce(mode, "nxdomain")).toEqual(no("invalid option"));
  expect(coerce(mode, 1)).toEqual(no("not of type string"));
  // from an environment variable the case does not matter, as in FTL (FTLCONF_dns_listeningMode: 'all')
  expect(coerce(mode, "nxdomain", true)).toEqual(ok("NXDOMAIN"));
  expect(coerce(mode, " Null ", true)).toEqual(ok("NULL"));
  expect(coerce(mode, "refused", true)).toEqual(no("invalid option"));
});

test("strings: an array of strings; from text a ';'-separated list", () => {
  const leaf = strings([], "");
  const input = ["a", "b"];
  const got = coerce(leaf, input);
  expect(got).toEqual(ok(["a", "b"]));
  // a copy: changing the input later does not change the value
  expect(got.ok && got.value).not.toBe(input);
  expect(coerce(leaf, " a ; ;b;", true)).toEqual(ok(["a", "b"]));
  expect(coerce(leaf, "a;b")).toEqual(no("not of type array"));
  expect(coerce(leaf, ["a", 1])).toEqual(no("array has invalid elements"));
});

test("a leaf's own check runs on a well-typed value and marks the failure as validation", () => {
  const even = int(0, "", { check: (n) => (n % 2 ? "must be even" : null) });
  expect(coerce(even, 4)).toEqual(ok(4));
  expect(coerce(even, 3)).toEqual({ ok: false as const, reason: "must be even", validation: true });
  // a type error is reported before the check runs
  expect(coerce(even, "3")).toEqual(no("not of type integer"));
  const hosts = strings([], "", {
    each: (s) => (s.includes(" ") ? "no spaces" : null),
    check: (v) => (v.length > 2 ? "at most 2" : null),
  });
  expect(coerce(hosts, ["a", "b c"])).toEqual({ ok: false as const, reason: "[1]: no spaces", validation: true });
  expect(coerce(hosts, ["a", "b", "c"])).toEqual({ ok: false as const, reason: "at most 2", validation: true });
  expect(coerce(hosts, ["a", "b"])).toEqual(ok(["a", "b"]));
});

test("defaults are copied and leaves are recognised", () => {
  const def = ["9.9.9.9"];
  const leaf = strings(def, "");
  def.push("1.1.1.1");
  expect(leaf.default).toEqual(["9.9.9.9"]);
  expect(isLeaf(leaf)).toBe(true);
  expect(isLeaf({ kind: "bool" })).toBe(false);
  expect(isLeaf(null)).toBe(false);
});
