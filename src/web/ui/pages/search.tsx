// Is this domain blocked, and by what: the domain rules and list entries that match it.
import { useState } from "preact/hooks";
import { enc, get } from "../api.ts";
import { Badge, Button, Card, ErrorNote, TextInput } from "../components.tsx";
import { num } from "../format.ts";

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
              aria-label="Domain"
              placeholder="ads.example.com"
              required
              value={q}
              onValue={setQ}
            />
            <label class="check">
              <input
                type="checkbox"
                checked={partial}
                onChange={(e) => setPartial((e.target as HTMLInputElement).checked)}
              />{" "}
              partial match
            </label>
            <Button type="submit" kind="primary" busy={busy}>
              Search
            </Button>
          </form>
        </search>
        <ErrorNote error={error} />
      </Card>
      {res && (
        <Card title={`${num(res.results.total)} matches`}>
          <p data-testid="search-verdict" class={`verdict ${allowedBy.length ? "ok" : blockedBy.length ? "bad" : ""}`}>
            {allowedBy.length
              ? "Allowed (an allow rule wins over every block)"
              : blockedBy.length
                ? "Blocked"
                : "Not blocked by any rule or list"}{" "}
            <small class="muted">(for clients in the groups of the matching entries)</small>
          </p>
          <ul class="results">
            {res.domains.map((d) => (
              <li key={`d${d.id}`}>
                <Badge kind={d.type === "deny" ? "bad" : "ok"}>{`${d.type} ${d.kind}`}</Badge> <code>{d.domain}</code>
                {!d.enabled && " (disabled)"} {d.comment && <small class="muted">{d.comment}</small>}
              </li>
            ))}
            {res.gravity.map((g, i) => (
              <li key={`g${g.id}-${i}`}>
                <Badge kind={g.type === "block" ? "bad" : "ok"}>{`${g.type} list`}</Badge> <code>{g.domain}</code> on{" "}
                <span class="break">{g.address}</span>
                {!g.enabled && " (disabled)"}
              </li>
            ))}
          </ul>
        </Card>
      )}
    </div>
  );
}
