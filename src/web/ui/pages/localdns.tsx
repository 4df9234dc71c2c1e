// Local DNS: A/AAAA records (dns.hosts, "ip name…") and CNAMEs (dns.cnameRecords,
// "alias[,alias…],target[,ttl]"), answered by Moat itself.
import { useState } from "preact/hooks";
import { get, patchConfig } from "../api.ts";
import { Card, Field, Loading, Modal, TextInput } from "../components.tsx";
import { EntityTable, SubmitButton, useForm, useFreshForm } from "../crud.tsx";
import { t } from "../i18n.ts";
import { usePoll } from "../poll.ts";

type Dns = { hosts: string[]; cnameRecords: string[] };

function useLocalDns() {
  return usePoll(
    () =>
      get<{ config: { dns: Dns } }>("/config/dns").then((r) => ({
        hosts: r.config.dns.hosts,
        cnameRecords: r.config.dns.cnameRecords,
      })),
    0,
  );
}

function RecordForm({
  kind,
  initial,
  all,
  onDone,
}: {
  kind: "hosts" | "cnameRecords";
  initial?: string;
  all: string[];
  onDone: () => void;
}) {
  const host = kind === "hosts";
  const parts = initial ? (host ? initial.trim().split(/\s+/) : initial.split(",")) : [];
  const [a, setA] = useState(
    host
      ? (parts.slice(1).join(" ") ?? "")
      : (parts
          .slice(0, -1)
          .filter((p) => !/^\d+$/.test(p))
          .join(",") ?? ""),
  );
  const [b, setB] = useState(host ? (parts[0] ?? "") : (parts.filter((p) => !/^\d+$/.test(p)).at(-1) ?? ""));
  const f = useForm();
  const entry = host ? `${b.trim()} ${a.trim()}` : `${a.trim()},${b.trim()}`;
  const next = initial ? all.map((x) => (x === initial ? entry : x)) : [...all, entry];
  const save = f.onSubmit("entry", () => patchConfig({ [`dns.${kind}`]: next }).then(() => undefined), onDone);
  return (
    <form class="form row wrap" onSubmit={save}>
      <Field
        label={host ? t("Domain") : t("Alias")}
        id={`${kind}-a`}
        hint={host ? t("several names: separate with spaces") : t("several aliases: separate with commas")}
      >
        <TextInput id={`${kind}-a`} required value={a} placeholder={host ? "nas.lan" : "files.lan"} onValue={setA} />
      </Field>
      <Field label={host ? t("IP address") : t("Target")} id={`${kind}-b`} error={f.errors.entry}>
        <TextInput id={`${kind}-b`} required value={b} placeholder={host ? "192.168.1.10" : "nas.lan"} onValue={setB} />
      </Field>
      <SubmitButton busy={f.busy} editing={!!initial} class="align-end" />
    </form>
  );
}

function Records({ kind, data, reload }: { kind: "hosts" | "cnameRecords"; data: Dns; reload: () => void }) {
  const [editing, setEditing] = useState<string | null>(null);
  const all = data[kind];
  const host = kind === "hosts";
  const [formKey, added] = useFreshForm();
  return (
    <Card title={host ? t("A / AAAA records") : t("CNAME records")}>
      <RecordForm
        key={formKey}
        kind={kind}
        all={all}
        onDone={() => {
          added();
          reload();
        }}
      />
      <EntityTable
        rows={all}
        rowKey={(r) => r}
        columns={
          host
            ? [
                { title: t("Domain"), class: "domain", cell: (r) => r.trim().split(/\s+/).slice(1).join(" ") },
                { title: t("IP address"), cell: (r) => <code>{r.trim().split(/\s+/)[0]}</code> },
              ]
            : [
                {
                  title: t("Alias"),
                  class: "domain",
                  cell: (r) =>
                    r
                      .split(",")
                      .filter((p) => !/^\d+$/.test(p))
                      .slice(0, -1)
                      .join(", "),
                },
                {
                  title: t("Target"),
                  cell: (r) => (
                    <code>
                      {r
                        .split(",")
                        .filter((p) => !/^\d+$/.test(p))
                        .at(-1)}
                    </code>
                  ),
                },
              ]
        }
        onEdit={setEditing}
        onDelete={(rows) => patchConfig({ [`dns.${kind}`]: all.filter((x) => !rows.includes(x)) }).then(reload)}
      />
      {editing && (
        <Modal title={t("Edit record")} onClose={() => setEditing(null)}>
          <RecordForm
            kind={kind}
            all={all}
            initial={editing}
            onDone={() => {
              setEditing(null);
              reload();
            }}
          />
        </Modal>
      )}
    </Card>
  );
}

export function LocalDns() {
  const { data, reload } = useLocalDns();
  if (!data) return <Loading />;
  return (
    <div class="stack">
      <Records kind="hosts" data={data} reload={reload} />
      <Records kind="cnameRecords" data={data} reload={reload} />
    </div>
  );
}
