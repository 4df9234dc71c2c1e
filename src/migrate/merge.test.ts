import { expect, test } from "bun:test";
import { mergeMaps } from "./merge.ts";

const group = (name: string) => ({ enabled: 1, name, description: null, date_added: 1 });

test("rows the target has are kept and the source's links and family controls point at them; new rows get ids after the target's", () => {
  const target = {
    "group/0": group("Default"),
    "group/1": group("kids"),
    "domainlist/1": { type: 1, domain: "a.example", enabled: 1, comment: null, date_added: 1 },
    "domainlist_by_group/1/0": 1,
  };
  const source = {
    "group/0": group("Default"),
    "group/1": group("guests"),
    "group/2": group("kids"),
    "domainlist/1": { type: 1, domain: "b.example", enabled: 1, comment: null, date_added: 1 },
    "domainlist/2": { type: 1, domain: "a.example", enabled: 0, comment: "theirs", date_added: 1 },
    "domainlist_by_group/1/1": 1,
    "domainlist_by_group/2/2": 1,
    "moat_group_service/2/tiktok": 1,
    "moat_group_upstream/1": { upstreams: '["9.9.9.9"]' },
  };
  expect(mergeMaps(target, source)).toEqual({
    ...target,
    "group/2": group("guests"),
    "domainlist/2": { type: 1, domain: "b.example", enabled: 1, comment: null, date_added: 1 },
    // b.example (source 1) is new: id 2, linked to guests (source 1 -> 2)
    "domainlist_by_group/2/2": 1,
    // a.example exists (target 1, kept as it is) and gets the source's link to kids (source 2 -> target 1)
    "domainlist_by_group/1/1": 1,
    "moat_group_service/1/tiktok": 1,
    "moat_group_upstream/2": { upstreams: '["9.9.9.9"]' },
  });
});
