// The custom rules text the query log's "Block for this client" writes, without a browser (client-rule.ts).
import { expect, test } from "bun:test";
import { clientRule, ruleCanName, withClientRule } from "../../src/web/ui/pages/client-rule.ts";

test("a block for one client is one $client rule, and the unblock takes it out again", () => {
  const before = "! mine\n||ads.test^\n";
  const blocked = withClientRule(before, "x.test", "127.0.0.2", true);
  expect(blocked).toBe("! mine\n||ads.test^\n||x.test^$client=127.0.0.2\n");
  expect(withClientRule(blocked, "x.test", "127.0.0.2", true)).toBe(blocked);
  expect(withClientRule(blocked, "x.test", "127.0.0.2", false)).toBe(before);
});

test("unblocking a name something else blocks adds the exception, and blocking again removes it", () => {
  const unblocked = withClientRule("", "listed.test", "::1", false);
  expect(unblocked).toBe(`${clientRule("listed.test", "::1", true)}\n`);
  expect(unblocked).toBe("@@||listed.test^$client=::1\n");
  expect(withClientRule(unblocked, "listed.test", "::1", true)).toBe("");
});

test("only a name a rule can hold as it is gets the button", () => {
  expect(ruleCanName("ads.example.com")).toBe(true);
  expect(ruleCanName("_dmarc.example.com")).toBe(true);
  expect(ruleCanName("a^b.example")).toBe(false);
  expect(ruleCanName("x.test$client=1.2.3.4")).toBe(false);
  expect(ruleCanName("")).toBe(false);
});
