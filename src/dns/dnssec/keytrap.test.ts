// KeyTrap (CVE-2023-50387): 48 keys with one tag × 48 failing signatures would be 2,304 RSA-4096
// verifications; the budget stops after MAX_TRIES of them. bench/dns/keytrap.ts measures both.
import { describe, expect, test } from "bun:test";
import { nameFromText } from "./names.ts";
import { verifyRrset } from "./rrsig.ts";
import { trapKeys, trapRrset } from "./testdata/keytrap.ts";

describe("KeyTrap", () => {
  test("colliding keys and failing signatures cost at most the budget's verifications", () => {
    const now = Math.floor(Date.now() / 1000);
    const keys = trapKeys(48);
    const set = trapRrset(48, now);
    const budget = { tries: 8 };
    const t0 = performance.now();
    expect(verifyRrset(set, nameFromText("trap.test")!, keys, now, budget)).toBe("budget");
    const capped = performance.now() - t0;
    expect(budget.tries).toBe(0);
    // without the budget every pair would be tried: 3 signatures × 48 keys here, 48 × 48 in the attack
    const all = { tries: 1e9 };
    expect(verifyRrset(trapRrset(3, now), nameFromText("trap.test")!, keys, now, all)).toBe("bad");
    expect(1e9 - all.tries).toBe(3 * 48);
    expect(capped).toBeLessThan(1000);
  });

  test("the jobs of one query share its budget: a second trapped job gets what the first left", () => {
    const now = Math.floor(Date.now() / 1000);
    const keys = trapKeys(8);
    const query = { tries: 10 };
    const first = { tries: 8, query };
    const second = { tries: 8, query };
    expect(verifyRrset(trapRrset(8, now), nameFromText("trap.test")!, keys, now, first)).toBe("budget");
    expect(verifyRrset(trapRrset(8, now), nameFromText("trap.test")!, keys, now, second)).toBe("budget");
    // 8 and then the 2 the query had left, not 8 and 8
    expect({ first: first.tries, second: second.tries, query: query.tries }).toEqual({ first: 0, second: 6, query: 0 });
  });
});
