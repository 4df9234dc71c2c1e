// Who may use this DNS server at all: dns.access.allowed and dns.access.disallowed (AdGuard Home's
// allowed and disallowed clients). A refused query is answered REFUSED and shows in the query log as
// such (src/dns/access.ts); the lists apply without a restart.
import { useState } from "preact/hooks";
import { get } from "../../api.ts";
import { Card, ErrorNote, Loading } from "../../components.tsx";
import { FormEnd } from "../../fields.tsx";
import { t } from "../../i18n.ts";
import { usePoll } from "../../poll.ts";
import { useSaveConfig } from "./save.ts";
import { SettingField } from "./env.tsx";

type Access = { allowed: string[]; disallowed: string[] };

const lines = (s: string) =>
  s
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

function Form({ cfg, reload }: { cfg: Access; reload: () => void }) {
  const [allowed, setAllowed] = useState(cfg.allowed.join("\n"));
  const [disallowed, setDisallowed] = useState(cfg.disallowed.join("\n"));
  const { errors, busy, save: saveValues } = useSaveConfig(reload);
  const save = (e: Event) => {
    e.preventDefault();
    void saveValues(
      { "dns.access.allowed": lines(allowed), "dns.access.disallowed": lines(disallowed) },
      { "dns.access.allowed": cfg.allowed, "dns.access.disallowed": cfg.disallowed },
    );
  };
  const hint = t("One per line: an IP address, a network (192.168.1.0/24) or a DoT/DoH client ID");
  return (
    <form class="form" onSubmit={save}>
      <p class="muted">{t("Queries from a client that may not use Moat are answered REFUSED and logged as such.")}</p>
      <SettingField
        setting="dns.access.allowed"
        errors={errors}
        label={t("Allowed clients (empty: everyone)")}
        id="s-access-allowed"
        hint={hint}
      >
        <textarea
          id="s-access-allowed"
          rows={3}
          value={allowed}
          onInput={(e) => setAllowed((e.target as HTMLTextAreaElement).value)}
        />
      </SettingField>
      <SettingField
        setting="dns.access.disallowed"
        errors={errors}
        label={t("Disallowed clients")}
        id="s-access-disallowed"
        hint={hint}
      >
        <textarea
          id="s-access-disallowed"
          rows={3}
          value={disallowed}
          onInput={(e) => setDisallowed((e.target as HTMLTextAreaElement).value)}
        />
      </SettingField>
      <FormEnd busy={busy} label={t("Save client access")} />
    </form>
  );
}

export function AccessCard() {
  const { data, error, reload } = usePoll(
    () => get<{ config: { dns: { access: Access } } }>("/config/dns/access").then((r) => r.config.dns.access),
    0,
  );
  return (
    <Card title={t("Client access")}>
      <ErrorNote error={error} />
      {data ? <Form cfg={data} reload={reload} /> : !error && <Loading />}
    </Card>
  );
}
