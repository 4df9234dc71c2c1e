// Custom rules: AdGuard Home's "Custom filtering rules" (`/api/rules/custom`), one rule a line in AdGuard's
// syntax, with what Moat does not apply named line by line; and, per block list, the AdGuard-syntax rules the last
// gravity run applied and those it did not (`/api/rules/lists`).
import { useEffect, useState } from "preact/hooks";
import { api, get } from "../api.ts";
import { Button, Card, Field, Loading, useAction } from "../components.tsx";
import { plural, t } from "../i18n.ts";
import { usePoll } from "../poll.ts";

type Unsupported = { rule: string; why: string };
type Custom = { rules: { text: string; updated: number; applied: number; unsupported: Unsupported[] } };
type ListRules = {
  lists: Array<{ id: number; address: string; rules: number; unsupported: number; examples: Unsupported[] }>;
};

function NotApplied({ rows }: { rows: Unsupported[] }) {
  if (rows.length === 0) return null;
  return (
    <ul class="rule-problems">
      {rows.map((u) => (
        <li key={u.rule}>
          <code>{u.rule}</code>: {u.why}
        </li>
      ))}
    </ul>
  );
}

function CustomRules() {
  const { data, reload } = usePoll(() => get<Custom>("/rules/custom"), 0);
  const [text, setText] = useState<string | null>(null);
  const [busy, run] = useAction();
  useEffect(() => {
    if (data && text === null) setText(data.rules.text);
  }, [data]);
  if (!data || text === null) return <Loading />;
  const r = data.rules;
  const save = () =>
    run(() => api("PUT", "/rules/custom", { text }).then(reload), t("Custom rules saved")).then(() => undefined);
  return (
    <Card
      title={t("Custom rules")}
      actions={
        <Button kind="primary" busy={busy} onClick={save} disabled={text === r.text}>
          {t("Save")}
        </Button>
      }
    >
      <Field
        label={t("Rules, one a line")}
        id="custom-rules"
        hint={t(
          "AdGuard Home's syntax: ||example.com^ blocks a name and the names below it, @@||example.com^ allows, /regex/, hosts lines, ! comments; modifiers $important, $badfilter, $client, $dnstype, $denyallow, $dnsrewrite",
        )}
      >
        <textarea
          id="custom-rules"
          rows={12}
          spellcheck={false}
          value={text}
          placeholder={"||ads.example.com^\n@@||cdn.example.com^"}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
      </Field>
      <p class="note" role="status">
        {plural(r.applied, { one: "{count} rule applied", other: "{count} rules applied" })}
        {r.unsupported.length > 0 &&
          `, ${plural(r.unsupported.length, { one: "{count} not applied", other: "{count} not applied" })}`}
      </p>
      <NotApplied rows={r.unsupported} />
    </Card>
  );
}

function ListRulesCard() {
  const { data } = usePoll(() => get<ListRules>("/rules/lists"), 0);
  if (!data) return <Loading />;
  return (
    <Card title={t("AdGuard rules in the block lists")}>
      {data.lists.length === 0 ? (
        <p class="note">{t("No block list has AdGuard rules beyond plain names (at the last gravity update).")}</p>
      ) : (
        data.lists.map((l) => (
          <div key={l.id} class="list-rules">
            <h3 class="domain">{l.address}</h3>
            <p>
              {plural(l.rules, { one: "{count} rule applied", other: "{count} rules applied" })}
              {`, ${plural(l.unsupported, { one: "{count} not applied", other: "{count} not applied" })}`}
            </p>
            <NotApplied rows={l.examples} />
          </div>
        ))
      )}
    </Card>
  );
}

export function Rules() {
  return (
    <div class="stack">
      <CustomRules />
      <ListRulesCard />
    </div>
  );
}
