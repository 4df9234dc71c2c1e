// Subscribed block and allow lists: status, counts, last update; "Update now" runs gravity and
// streams its progress here.
import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { api, enc } from "../api.ts";
import { Badge, Button, Card } from "../components.tsx";
import { EntityTable, GroupChips, throwProcessed, useForm, useGroups, type Group, type Processed } from "../crud.tsx";
import { KeyField, SelectField } from "../fields.tsx";
import { ago, num } from "../format.ts";
import { msg, plural, t } from "../i18n.ts";
import { GravityProgress } from "../gravity.tsx";
import { CommentField, EditDialog, GroupsAndSubmit, useResourcePage } from "../resource.tsx";

type List = {
  id: number;
  address: string;
  type: "block" | "allow";
  comment: string | null;
  groups: number[];
  enabled: boolean;
  date_updated: number;
  number: number;
  invalid_domains: number;
  abp_entries: number;
  status: number;
};

// adlist.status as gravity leaves it
const KIND = { block: msg("block"), allow: msg("allow") };

const STATUS: Record<number, [string, string]> = {
  0: [msg("not updated yet"), "info"],
  1: [msg("updated"), "ok"],
  2: [msg("unchanged"), "ok"],
  3: [msg("unreachable, cached copy used"), "warn"],
  4: [msg("unreachable, no copy"), "bad"],
};

/** the list kinds a form offers */
const TYPES: Array<["block" | "allow", string]> = [
  ["block", msg("Block list")],
  ["allow", msg("Allow list")],
];

/** a URL that wraps after its separators (/ . - _ ? & =), never inside a word */
function Url({ href }: { href: string }) {
  const parts = href.split(/(?<=[/._?&=-])/);
  return (
    <span class="url">
      {parts.map((p, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {p}
        </Fragment>
      ))}
    </span>
  );
}

/**
 * What the form takes: an http:// or https:// address (the API checks the host name and says what is
 * wrong). A file on Moat itself is no list to pick here: file:///etc/passwd was taken and read as one.
 */
function addressProblem(address: string): string | null {
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    return t("Not an address: write the whole URL, e.g. https://example.com/hosts.txt");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return t("Lists are downloaded: use an http:// or https:// address, not {scheme}", { scheme: `${url.protocol}//` });
  return null;
}

function ListForm({ groups, initial, onDone }: { groups: Group[]; initial?: List; onDone: () => void }) {
  const [address, setAddress] = useState(initial?.address ?? "");
  const [type, setType] = useState<"block" | "allow">(initial?.type ?? "block");
  const [comment, setComment] = useState(initial?.comment ?? "");
  const [sel, setSel] = useState<number[]>(initial?.groups ?? [0]);
  const f = useForm();
  const save = f.onSubmit(
    "address",
    async () => {
      const problem = initial ? null : addressProblem(address);
      if (problem) throw new Error(problem);
      const body = { comment: comment || null, groups: sel, enabled: initial?.enabled ?? true };
      const r = initial
        ? await api<Processed>("PUT", `/lists/${enc(initial.address)}?type=${initial.type}`, body)
        : await api<Processed>("POST", `/lists?type=${type}`, { ...body, address: address.trim() });
      throwProcessed(r);
    },
    onDone,
  );
  return (
    <form class="form" onSubmit={save}>
      <KeyField
        label={t("Address")}
        id="l-address"
        error={f.errors.address}
        hint={t("http:// or https:// address of a hosts, domains or ABP list")}
        type="url"
        value={address}
        editing={!!initial}
        placeholder="https://…"
        onValue={setAddress}
      />
      <div class="row wrap">
        <SelectField
          label={t("Kind")}
          id="l-type"
          value={type}
          onValue={setType}
          choices={TYPES}
          disabled={!!initial}
        />
        <CommentField id="l-comment" value={comment} onChange={setComment} />
      </div>
      <GroupsAndSubmit groups={groups} value={sel} onChange={setSel} busy={f.busy} editing={!!initial} />
    </form>
  );
}

export function Lists() {
  const groups = useGroups();
  const page = useResourcePage<List>("lists");
  const [updating, setUpdating] = useState(0);
  const [added, setAdded] = useState(false);
  const put = (l: List, enabled: boolean) =>
    api<Processed>("PUT", `/lists/${enc(l.address)}?type=${l.type}`, { comment: l.comment, groups: l.groups, enabled })
      .then(throwProcessed)
      .then(page.reload);
  return (
    <div class="stack">
      <Card title={t("Add a list")}>
        <ListForm
          key={page.formKey}
          groups={groups}
          onDone={() => {
            page.added();
            setAdded(true);
          }}
        />
        {added && !updating && (
          <p class="note">
            {t("The new list is used after the next update.")}{" "}
            <Button onClick={() => setUpdating(updating + 1)}>{t("Update now")}</Button>
          </p>
        )}
      </Card>
      <Card
        title={t("Lists")}
        actions={
          <Button kind="primary" busy={updating > 0 && !page.data} onClick={() => setUpdating(updating + 1)}>
            {t("Update now")}
          </Button>
        }
      >
        {updating > 0 && (
          <GravityProgress
            key={updating}
            lists={(page.data ?? []).filter((l) => l.enabled).length}
            onDone={() => {
              setAdded(false);
              page.reload();
            }}
          />
        )}
        <EntityTable
          rows={page.data}
          rowKey={(l) => l.address}
          columns={[
            { title: t("Address"), class: "address", cell: (l) => <Url href={l.address} /> },
            {
              title: t("Kind"),
              cell: (l) => <Badge kind={l.type === "block" ? "bad" : "ok"}>{t(KIND[l.type])}</Badge>,
            },
            {
              title: t("Status"),
              cell: (l) => (
                <Badge kind={STATUS[l.status]?.[1] ?? "info"}>
                  {STATUS[l.status] ? t(STATUS[l.status]![0]) : t("status {code}", { code: String(l.status) })}
                </Badge>
              ),
            },
            {
              title: t("Domains"),
              class: "num",
              cell: (l) => (
                <span
                  title={plural(l.invalid_domains, { one: "{count} invalid line", other: "{count} invalid lines" })}
                >
                  {num(l.number)}
                </span>
              ),
            },
            // gravity counts ABP lines (||example.com^) apart from plain domains: an ABP-only list
            // has 0 domains, and these are what it blocks
            { title: t("ABP entries"), class: "num", cell: (l) => (l.abp_entries ? num(l.abp_entries) : "") },
            { title: t("Updated"), class: "nowrap", cell: (l) => ago(l.date_updated) },
            { title: t("Comment"), cell: (l) => <span data-raw>{l.comment ?? ""}</span> },
            { title: t("Groups"), cell: (l) => <GroupChips ids={l.groups} groups={groups} /> },
          ]}
          enabled={(l) => l.enabled}
          onToggle={put}
          onEdit={page.edit}
          onDelete={page.batchDelete((l) => ({ item: l.address, type: l.type }))}
        />
      </Card>
      <EditDialog row={page.editing} title={() => t("Edit list")} onClose={page.close}>
        {(l) => <ListForm groups={groups} initial={l} onDone={page.saved} />}
      </EditDialog>
    </div>
  );
}
