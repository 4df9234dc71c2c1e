// /api/rules (Moat's own): AdGuard Home's rule syntax. `/api/rules/custom` is AdGuard's "Custom filtering
// rules" (one text, src/lists/custom-rules.ts), `/api/rules/lists` what the last gravity run found in each
// block list beside its plain names: the rules applied and those not, each named with why.
import { Elysia, t } from "elysia";
import type { ApiDeps } from "../deps.ts";
import { parseRule } from "../../filter/rule-syntax.ts";
import { MAX_CUSTOM_RULES } from "../../lists/custom-rules.ts";
import { moatOnly } from "../core/route-meta.ts";
import { documented } from "../docs/meta.ts";

const tags = ["AdGuard rules"];

const Unsupported = t.Object({
  rule: t.String(),
  why: t.String({ description: "the modifier or form Moat does not apply" }),
});
const CustomReply = t.Object({
  rules: t.Object({
    text: t.String({ description: "the rules, one a line, as written" }),
    updated: t.Integer({ description: "unix seconds of the last change, 0: never" }),
    applied: t.Integer({ description: "lines Moat applies" }),
    unsupported: t.Array(Unsupported, { description: "lines Moat does not apply, each with why" }),
  }),
});

function customReply(text: string, updated: number) {
  let applied = 0;
  const unsupported: Array<{ rule: string; why: string }> = [];
  for (const line of text.split("\n")) {
    const p = parseRule(line);
    if (p === null) continue;
    if ("unsupported" in p) unsupported.push({ rule: line.trim(), why: p.unsupported });
    else applied++;
  }
  return { rules: { text, updated, applied, unsupported } };
}

export function rulesRoutes(rt: ApiDeps) {
  return new Elysia({ name: "adguard-rules" })
    .get(
      "/rules/custom",
      () => {
        const c = rt.lists.customRules();
        return customReply(c.rules, c.updated);
      },
      {
        response: CustomReply,
        detail: moatOnly(documented({ tags, summary: "The custom rules (AdGuard Home's syntax)" }, {})),
      },
    )
    .put(
      "/rules/custom",
      ({ body }) => {
        const c = rt.lists.setCustomRules(body.text);
        return customReply(c.rules, c.updated);
      },
      {
        body: t.Object({
          text: t.String({
            maxLength: MAX_CUSTOM_RULES,
            description: "the rules, one a line: ||name^, @@||name^, /regex/, hosts lines, ! and # comments, modifiers",
          }),
        }),
        response: CustomReply,
        detail: moatOnly(
          documented(
            { tags, summary: "Replace the custom rules" },
            { responses: { 400: "Not a text, or longer than a megabyte" } },
          ),
        ),
      },
    )
    .get(
      "/rules/lists",
      () => {
        const addresses = new Map(rt.lists.adlistRows(null, undefined).map((l) => [l.id, l.address]));
        return {
          lists: rt.gravity
            .listRules()
            .filter((l) => addresses.has(l.id))
            .map((l) => ({ ...l, address: addresses.get(l.id)! })),
        };
      },
      {
        response: t.Object({
          lists: t.Array(
            t.Object({
              id: t.Integer(),
              address: t.String(),
              rules: t.Integer({ description: "AdGuard-syntax rules applied (plain names and ||name^ not counted)" }),
              unsupported: t.Integer({ description: "rules not applied" }),
              examples: t.Array(Unsupported, { description: "the first 20 rules not applied" }),
            }),
          ),
        }),
        detail: moatOnly(
          documented({ tags, summary: "Each block list's AdGuard-syntax rules at the last gravity run" }, {}),
        ),
      },
    );
}
