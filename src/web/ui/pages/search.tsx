// Is this domain blocked, and by what: the domain rules and list entries that match it.
import { useState } from "preact/hooks";
import { enc, get } from "../api.ts";
import { Badge, Button, Card, ErrorNote, TextInput } from "../components.tsx";
import { Check } from "../fields.tsx";
import { msg, plural, t, tx } from "../i18n.ts";

type Reply = {
  search: {
    domains: Array<{
      id: number;
      domain: string;
      type: string;
      kind: string;
      enabled: boolean;
      comment: string | null;
    }>;
    gravity: Array<{ id: number; domain: string; address: string; type: string; enabled: boolean }>;
    results: { total: number };
  };
};

/** the API's words for a rule's type and kind, as shown */
const WORDS: Record<string, string> = {
  deny: msg("deny"),
  allow: msg("allow"),
  exact: msg("exact"),
  regex: msg("regex"),
};
const word = (w: string) => (WORDS[w] ? t(WORDS[w]) : w);

export function Search() {
  const [q, setQ] = useState("");
  const [partial, setPartial] = useState(false);
  const [busy, setBusy] = useState(false);
  const [res, setRes] = useState<Reply["search"] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const search = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setRes((await get<Reply>(`/search/${enc(q.trim())}?N=100&partial=${partial}`)).search);
    } catch (err) {
      setError(err);
      setRes(null);
    } finally {
      setBusy(false);
    }
  };
  const blockedBy = res
    ? [
        ...res.domains.filter((d) => d.enabled && d.type === "deny"),
        ...res.gravity.filter((g) => g.enabled && g.type === "block"),
      ]
    : [];
  const allowedBy = res
    ? [
        ...res.domains.filter((d) => d.enabled && d.type === "allow"),
        ...res.gravity.filter((g) => g.enabled && g.type === "allow"),
      ]
    : [];
  return (
    <div class="stack">
      <Card>
        <search>
          <form class="row wrap" onSubmit={search}>
            <TextInput
              class="grow"
              aria-label={t("Domain")}
              placeholder="ads.example.com"
              required
              value={q}
              onValue={setQ}
            />
            <Check id="search-partial" label={t("partial match")} checked={partial} set={setPartial} />
            <Button type="submit" kind="primary" busy={busy}>
              {t("Search")}
            </Button>
          </form>
        </search>
        <ErrorNote error={error} />
      </Card>
      {res && (
        <Card title={plural(res.results.total, { one: "{count} match", other: "{count} matches" })}>
          <p data-testid="search-verdict" class={`verdict ${allowedBy.length ? "ok" : blockedBy.length ? "bad" : ""}`}>
            {allowedBy.length
              ? t("Allowed (an allow rule wins over every block)")
              : blockedBy.length
                ? t("Blocked")
                : t("Not blocked by any rule or list")}{" "}
            <small class="muted">{t("(for clients in the groups of the matching entries)")}</small>
          </p>
          <ul class="results">
            {res.domains.map((d) => (
              <li key={`d${d.id}`}>
                <Badge kind={d.type === "deny" ? "bad" : "ok"}>
                  {t("{type} {kind}", { type: word(d.type), kind: word(d.kind) })}
                </Badge>{" "}
                <code data-raw>{d.domain}</code>
                {!d.enabled && ` ${t("(disabled)")}`}{" "}
                {d.comment && (
                  <small class="muted" data-raw>
                    {d.comment}
                  </small>
                )}
              </li>
            ))}
            {res.gravity.map((g, i) => (
              <li key={`g${g.id}-${i}`}>
                <Badge kind={g.type === "block" ? "bad" : "ok"}>
                  {g.type === "block" ? t("block list") : t("allow list")}
                </Badge>{" "}
                {tx("{domain} on {address}", {
                  domain: <code data-raw>{g.domain}</code>,
                  address: (
                    <span class="break" data-raw>
                      {g.address}
                    </span>
                  ),
                })}
                {!g.enabled && ` ${t("(disabled)")}`}
              </li>
            ))}
          </ul>
        </Card>
      )}
    </div>
  );
}
