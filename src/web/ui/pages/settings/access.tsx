// Who may use this DNS server at all: dns.access.allowed and dns.access.disallowed (AdGuard Home's
// allowed and disallowed clients). A refused query is answered REFUSED and shows in the query log as
// such (src/dns/access.ts); the lists apply without a restart.
import { msg, t } from "../../i18n.ts";
import { ConfigCard, SettingLines, SettingsForm, useSettingsForm } from "./form.tsx";

type Access = { allowed: string[]; disallowed: string[] };

/** the two lists: config key, field id and label; they read alike */
const LISTS = [
  ["dns.access.allowed", "s-access-allowed", msg("Allowed clients (empty: everyone)")],
  ["dns.access.disallowed", "s-access-disallowed", msg("Disallowed clients")],
] as const;

function Form({ cfg, reload }: { cfg: Access; reload: () => void }) {
  const values = { "dns.access.allowed": cfg.allowed, "dns.access.disallowed": cfg.disallowed };
  const form = useSettingsForm(values, reload);
  const hint = t("One per line: an IP address, a network (192.168.1.0/24) or a DoT/DoH client ID");
  return (
    <SettingsForm form={form} label={t("Save client access")}>
      <p class="muted">{t("Queries from a client that may not use Moat are answered REFUSED and logged as such.")}</p>
      {LISTS.map(([setting, id, label]) => (
        <SettingLines key={id} setting={setting} label={t(label)} id={id} hint={hint} rows={3} />
      ))}
    </SettingsForm>
  );
}

export function AccessCard() {
  return (
    <ConfigCard
      title={t("Client access")}
      path="/config/dns/access"
      pick={(c: { dns: { access: Access } }) => c.dns.access}
    >
      {(cfg, reload) => <Form cfg={cfg} reload={reload} />}
    </ConfigCard>
  );
}
