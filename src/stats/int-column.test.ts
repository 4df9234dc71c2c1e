import { expect, test } from "bun:test";
import { IntColumn } from "./int-column.ts";

const SIZE = 4096;

/** Sets `values` in order and checks each comes back, then returns the column's bytes. */
function roundTrip(bits: 8 | 16, none: number, values: number[]): number {
  const c = new IntColumn(SIZE, bits, none);
  values.forEach((v, i) => c.set(i, v));
  expect(values.map((_, i) => c.get(i))).toEqual(values);
  return c.bytes();
}

test("int column: nothing while every value is the same, then 8 or 16 bits, then 32, every value exact", () => {
  expect(roundTrip(8, -1, Array(SIZE).fill(-1))).toBe(0);
  expect(roundTrip(16, -1, Array(SIZE).fill(40_000))).toBe(0);
  expect(
    roundTrip(
      8,
      -1,
      Array.from({ length: SIZE }, (_, i) => (i % 9) - 1),
    ),
  ).toBe(SIZE);
  expect(
    roundTrip(
      16,
      -1,
      Array.from({ length: SIZE }, (_, i) => i * 8 - 1),
    ),
  ).toBe(2 * SIZE);
  // the 8-bit range's edges, the value past it widens (the ones before stay as they were)
  expect(roundTrip(8, -1, [-1, 127, -127, 0, 5, 128, 3, -1])).toBe(4 * SIZE);
  expect(roundTrip(8, -1, [-1, -128, 4])).toBe(4 * SIZE);
  expect(roundTrip(16, -1, [7, 32_767, -32_767, 32_768, -1])).toBe(4 * SIZE);
});

test("int column: `none` fits however large it is; a constant run, then a value, keeps the run", () => {
  const NONE = -2147483648;
  expect(roundTrip(16, NONE, [NONE, NONE, 12, NONE, -5, 9])).toBe(2 * SIZE);
  expect(roundTrip(16, NONE, [NONE, NONE, NONE])).toBe(0);
  // a run of a value the narrow array cannot hold goes straight to 32 bits
  expect(roundTrip(16, -1, [70_000, 70_000, 70_000, 1])).toBe(4 * SIZE);
  expect(roundTrip(8, -1, [3, 3, 3, -1, 3, 200])).toBe(4 * SIZE);
});
