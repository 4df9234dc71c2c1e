// Allow and deny entries: exact domains, regexes, and wildcards (stored as the regex Pi-hole's
// interface makes of them; an ABP line `||example.com^` is read the same way).
import { useState } from "preact/hooks";
import { api, enc, get } from "../api.ts";
import { Badge, Button, Card, Field, Loading, Modal } from "../components.tsx";
import {
  EntityTable,
  GroupChips,
  GroupPicker,
  throwProcessed,
  useForm,
  useGroups,
  type Group,
  type Processed,
  useFreshForm,
} from "../crud.tsx";
import { dateTime } from "../format.ts";
import { usePoll } from "../poll.ts";

type Domain = {
  id: number;
  domain: string;
  unicode: string;
  type: "allow" | "deny";
  kind: "exact" | "regex";
  comment: string | null;
  groups: number[];
  enabled: boolean;
  date_added: number;
};
type Kind = "exact" | "wildcard" | "regex";

/** the domain of a wildcard or ABP entry: `||example.com^` and `*.example.com` are example.com */
const wildcardDomain = (input: string) => input.trim().replace(/^\|\|/, "").replace(/\^$/, "").replace(/^\*\./, "");

/** What gets stored for a wildcard or ABP entry: a regex, so the name is checked here (a regex is not). */
function toRegex(input: string): string {
  const d = wildcardDomain(input);
  if (!/^(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*$/i.test(d) || d.length > 253)
    throw Object.assign(new Error(`"${d.slice(0, 100)}" is not a domain`), {
      text: `"${d.slice(0, 100)}" is not a domain`,
    });
  return `(\\.|^)${d.replace(/[.+?^${}()|[\]\\]/g, "\\$&")}$`;
}

/** `(\.|^)example\.com$`, the regex stored for a wildcard or ABP entry, read back as `*.example.com` */
const WILDCARD_RE = /^\(\\\.\|\^\)((?:[a-z0-9_-]|\\\.)+)\$$/i;

/** how an entry reads: a wildcard as `*.domain` (as it was typed), anything else as stored */
function shown(d: Domain): { text: string; kind: string } {
  const m = d.kind === "regex" ? WILDCARD_RE.exec(d.domain) : null;
  if (m) return { text: `*.${m[1]!.replace(/\\\./g, ".")}`, kind: "wildcard" };
  const abp = d.kind === "regex" ? /^\|\|(.+)\^$/.exec(d.domain) : null;
  if (abp) return { text: `*.${abp[1]}`, kind: "wildcard" };
  return { text: d.unicode || d.domain, kind: d.kind };
}

function DomainForm({ groups, initial, onDone }: { groups: Group[]; initial?: Domain; onDone: () => void }) {
  const [domain, setDomain] = useState(initial?.domain ?? "");
  const [type, setType] = useState<"allow" | "deny">(initial?.type ?? "deny");
  const [kind, setKind] = useState<Kind>(initial?.kind ?? "exact");
  const [comment, setComment] = useState(initial?.comment ?? "");
  const [sel, setSel] = useState<number[]>(initial?.groups ?? [0]);
  const f = useForm();
  const save = (e: Event) => {
    e.preventDefault();
    const abp = /^\|\|.*\^$/.test(domain.trim());
    const storedKind = kind === "exact" && !abp ? "exact" : "regex";
    const wildcard = kind === "wildcard" || (kind === "exact" && abp);
    void f
      .submit(
        async () => {
          const value = !initial && wildcard ? toRegex(domain) : domain.trim();
          const body = { comment: comment || null, groups: sel, enabled: initial?.enabled ?? true };
          const r = initial
            ? await api<Processed>("PUT", `/domains/${type}/${storedKind}/${enc(initial.domain)}`, {
                ...body,
                type: initial.type,
                kind: initial.kind,
              })
            : await api<Processed>("POST", `/domains/${type}/${storedKind}`, { ...body, domain: value });
          throwProcessed(r);
        },
        () => "domain",
      )
      .then((ok) => ok && onDone());
  };
  return (
    <form class="form" onSubmit={save}>
      <Field
        label="Domain"
        id="d-domain"
        error={f.errors.domain}
        hint={
          kind === "wildcard"
            ? "example.com blocks it and every subdomain"
            : kind === "regex"
              ? "an extended regular expression"
              : "example.com, or an ABP line ||example.com^"
        }
      >
        <input
          id="d-domain"
          required
          value={domain}
          disabled={!!initial}
          onInput={(e) => setDomain((e.target as HTMLInputElement).value)}
        />
      </Field>
      <div class="row wrap">
        <Field label="List" id="d-type">
          <select
            id="d-type"
            value={type}
            onChange={(e) => setType((e.target as HTMLSelectElement).value as "allow" | "deny")}
          >
            <option value="deny">Deny</option>
            <option value="allow">Allow</option>
          </select>
        </Field>
        <Field label="Kind" id="d-kind">
          <select id="d-kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}>
            <option value="exact">Exact</option>
            <option value="wildcard">Wildcard (with subdomains)</option>
            <option value="regex">Regex</option>
          </select>
        </Field>
      </div>
      <Field label="Comment" id="d-comment">
        <input id="d-comment" value={comment} onInput={(e) => setComment((e.target as HTMLInputElement).value)} />
      </Field>
      <GroupPicker groups={groups} value={sel} onChange={setSel} />
      <div class="row end">
        <Button type="submit" kind="primary" busy={f.busy}>
          {initial ? "Save" : "Add"}
        </Button>
      </div>
    </form>
  );
}

export function Domains() {
  const groups = useGroups();
  const { data, reload } = usePoll(() => get<{ domains: Domain[] }>("/domains").then((r) => r.domains), 0);
  const [formKey, added] = useFreshForm();
  const [filter, setFilter] = useState<"all" | "allow" | "deny">("all");
  const [editing, setEditing] = useState<Domain | null>(null);
  const rows = (data ?? []).filter((d) => filter === "all" || d.type === filter);
  const put = (d: Domain, enabled: boolean) =>
    api<Processed>("PUT", `/domains/${d.type}/${d.kind}/${enc(d.domain)}`, {
      type: d.type,
      kind: d.kind,
      comment: d.comment,
      groups: d.groups,
      enabled,
    })
      .then(throwProcessed)
      .then(reload);
  return (
    <div class="stack">
      <Card title="Add a domain">
        <DomainForm
          key={formKey}
          groups={groups}
          onDone={() => {
            added();
            reload();
          }}
        />
      </Card>
      <Card
        title="Domains"
        actions={
          <fieldset class="seg" aria-label="Show">
            {(["all", "allow", "deny"] as const).map((f) => (
              <button
                key={f}
                type="button"
                class={filter === f ? "on" : ""}
                aria-pressed={filter === f}
                onClick={() => setFilter(f)}
              >
                {f}
              </button>
            ))}
          </fieldset>
        }
      >
        {!data ? (
          <Loading />
        ) : (
          <EntityTable
            noun="domain"
            rows={rows}
            rowKey={(d) => d.domain}
            columns={[
              {
                title: "Domain",
                class: "domain",
                cell: (d) => <code title={shown(d).kind === "wildcard" ? d.domain : undefined}>{shown(d).text}</code>,
              },
              {
                title: "Type",
                cell: (d) => <Badge kind={d.type === "deny" ? "bad" : "ok"}>{`${d.type} ${shown(d).kind}`}</Badge>,
              },
              { title: "Comment", cell: (d) => d.comment ?? "" },
              { title: "Groups", cell: (d) => <GroupChips ids={d.groups} groups={groups} /> },
              { title: "Added", class: "nowrap", cell: (d) => dateTime(d.date_added) },
            ]}
            enabled={(d) => d.enabled}
            onToggle={put}
            onEdit={setEditing}
            onDelete={(list) =>
              api(
                "POST",
                "/domains:batchDelete",
                list.map((d) => ({ item: d.domain, type: d.type, kind: d.kind })),
              ).then(reload)
            }
          />
        )}
      </Card>
      {editing && (
        <Modal title={`Edit ${editing.domain}`} onClose={() => setEditing(null)}>
          <DomainForm
            groups={groups}
            initial={editing}
            onDone={() => {
              setEditing(null);
              reload();
            }}
          />
        </Modal>
      )}
    </div>
  );
}
