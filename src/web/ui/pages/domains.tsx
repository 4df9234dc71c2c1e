// Allow and deny entries: exact domains, regexes, and wildcards (stored as the regex Pi-hole's
// interface makes of them; an ABP line `||example.com^` is read the same way).
import { useState } from "preact/hooks";
import { api, enc } from "../api.ts";
import { Badge, Card } from "../components.tsx";
import { EntityTable, GroupChips, throwProcessed, useForm, useGroups, type Group, type Processed } from "../crud.tsx";
import { KeyField, SelectField } from "../fields.tsx";
import { dateTime } from "../format.ts";
import { msg, t } from "../i18n.ts";
import { CommentField, EditDialog, GroupsAndSubmit, useResourcePage } from "../resource.tsx";

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

const TYPES: Array<[Domain["type"], string]> = [
  ["deny", msg("Deny")],
  ["allow", msg("Allow")],
];
const KINDS: Array<[Kind, string]> = [
  ["exact", msg("Exact")],
  ["wildcard", msg("Wildcard (with subdomains)")],
  ["regex", msg("Regex")],
];

/** the filter's choices and the type badge's words */
const SHOW = { all: msg("all"), allow: msg("allow"), deny: msg("deny") };
const BADGE: Record<string, string> = {
  "allow exact": msg("allow exact"),
  "allow wildcard": msg("allow wildcard"),
  "allow regex": msg("allow regex"),
  "deny exact": msg("deny exact"),
  "deny wildcard": msg("deny wildcard"),
  "deny regex": msg("deny regex"),
};

/** the domain of a wildcard or ABP entry: `||example.com^` and `*.example.com` are example.com */
const wildcardDomain = (input: string) => input.trim().replace(/^\|\|/, "").replace(/\^$/, "").replace(/^\*\./, "");

/** What gets stored for a wildcard or ABP entry: a regex, so the name is checked here (a regex is not). */
function toRegex(input: string): string {
  const d = wildcardDomain(input);
  if (!/^(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*$/i.test(d) || d.length > 253) {
    const text = t('"{domain}" is not a domain', { domain: d.slice(0, 100) });
    throw Object.assign(new Error(text), { text });
  }
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
  const abp = /^\|\|.*\^$/.test(domain.trim());
  const storedKind = kind === "exact" && !abp ? "exact" : "regex";
  const wildcard = kind === "wildcard" || (kind === "exact" && abp);
  const save = f.onSubmit(
    "domain",
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
    onDone,
  );
  return (
    <form class="form" onSubmit={save}>
      <KeyField
        label={t("Domain")}
        id="d-domain"
        error={f.errors.domain}
        hint={
          kind === "wildcard"
            ? t("example.com blocks it and every subdomain")
            : kind === "regex"
              ? t("an extended regular expression")
              : t("example.com, or an ABP line ||example.com^")
        }
        value={domain}
        onValue={setDomain}
        editing={!!initial}
      />
      <div class="row wrap">
        <SelectField label={t("List")} id="d-type" value={type} onValue={setType} choices={TYPES} />
        <SelectField label={t("Kind")} id="d-kind" value={kind} onValue={setKind} choices={KINDS} />
      </div>
      <CommentField id="d-comment" value={comment} onChange={setComment} />
      <GroupsAndSubmit groups={groups} value={sel} onChange={setSel} busy={f.busy} editing={!!initial} />
    </form>
  );
}

export function Domains() {
  const groups = useGroups();
  const page = useResourcePage<Domain>("domains");
  const [filter, setFilter] = useState<"all" | "allow" | "deny">("all");
  const rows = page.data?.filter((d) => filter === "all" || d.type === filter);
  const put = (d: Domain, enabled: boolean) =>
    api<Processed>("PUT", `/domains/${d.type}/${d.kind}/${enc(d.domain)}`, {
      type: d.type,
      kind: d.kind,
      comment: d.comment,
      groups: d.groups,
      enabled,
    })
      .then(throwProcessed)
      .then(page.reload);
  return (
    <div class="stack">
      <Card title={t("Add a domain")}>
        <DomainForm key={page.formKey} groups={groups} onDone={page.added} />
      </Card>
      <Card
        title={t("Domains")}
        actions={
          <fieldset class="seg" aria-label={t("Show")}>
            {(["all", "allow", "deny"] as const).map((f) => (
              <button
                key={f}
                type="button"
                class={filter === f ? "on" : ""}
                aria-pressed={filter === f}
                onClick={() => setFilter(f)}
              >
                {t(SHOW[f])}
              </button>
            ))}
          </fieldset>
        }
      >
        <EntityTable
          rows={rows}
          rowKey={(d) => d.domain}
          columns={[
            {
              title: t("Domain"),
              class: "domain",
              cell: (d) => <code title={shown(d).kind === "wildcard" ? d.domain : undefined}>{shown(d).text}</code>,
            },
            {
              title: t("Type"),
              cell: (d) => (
                <Badge kind={d.type === "deny" ? "bad" : "ok"}>
                  {t(BADGE[`${d.type} ${shown(d).kind}`] ?? d.type)}
                </Badge>
              ),
            },
            { title: t("Comment"), cell: (d) => <span data-raw>{d.comment ?? ""}</span> },
            { title: t("Groups"), cell: (d) => <GroupChips ids={d.groups} groups={groups} /> },
            { title: t("Added"), class: "nowrap", cell: (d) => dateTime(d.date_added) },
          ]}
          enabled={(d) => d.enabled}
          onToggle={put}
          onEdit={page.edit}
          onDelete={page.batchDelete((d) => ({ item: d.domain, type: d.type, kind: d.kind }))}
        />
      </Card>
      <EditDialog row={page.editing} title={(d) => t("Edit {name}", { name: d.domain })} onClose={page.close}>
        {(d) => <DomainForm groups={groups} initial={d} onDone={page.saved} />}
      </EditDialog>
    </div>
  );
}
