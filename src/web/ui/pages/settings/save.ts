// Saving config keys from a settings card: the one way every card saves. The API's error goes under
// the key it names (a key of the card, or one below it), else under "form". With `before`, only the
// keys whose value changed are sent: the API refuses any write to a key the environment sets
// (FTLCONF_…), even an unchanged one; such keys are never sent (env.tsx).
import { useState } from "preact/hooks";
import { ApiError, patchConfig } from "../../api.ts";
import { toast } from "../../components.tsx";
import { t } from "../../i18n.ts";
import { messagesMayChange } from "../../messages.tsx";
import { withoutEnvKeys } from "./env.tsx";

export async function saveConfig(
  values: Record<string, unknown>,
  setErrors: (e: Record<string, string>) => void,
  before?: Record<string, unknown>,
): Promise<boolean> {
  setErrors({});
  values = withoutEnvKeys(values);
  const changed = before
    ? Object.fromEntries(Object.entries(values).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k])))
    : values;
  if (Object.keys(changed).length === 0) {
    toast(t("Nothing changed"));
    return false;
  }
  try {
    await patchConfig(changed);
    const ups = changed["dns.upstreams"];
    // saved, but DNS answers SERVFAIL for every name it cannot answer itself: not just "Saved"
    if (Array.isArray(ups) && ups.length === 0)
      toast(t("Saved, but with no upstream DNS servers every lookup of an outside name will fail (SERVFAIL)"), "warn");
    else toast(t("Saved"));
    // a setting may raise or clear a warning (an empty upstream list): the banners look again
    messagesMayChange.set(messagesMayChange.get() + 1);
    return true;
  } catch (e) {
    if (!(e instanceof ApiError)) {
      setErrors({ form: String(e) });
      return false;
    }
    const f = e.field;
    const key = f && f in values ? f : (Object.keys(values).find((k) => f?.startsWith(k)) ?? "form");
    setErrors({ [key]: e.text });
    return false;
  }
}

/** a settings card's form: the API's errors by key, whether it is saving, and its save (then `reload`) */
export function useSaveConfig(reload: () => void): {
  errors: Record<string, string>;
  busy: boolean;
  save: (values: Record<string, unknown>, before?: Record<string, unknown>) => Promise<void>;
} {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const save = async (values: Record<string, unknown>, before?: Record<string, unknown>) => {
    setBusy(true);
    const ok = await saveConfig(values, setErrors, before);
    setBusy(false);
    if (ok) reload();
  };
  return { errors, busy, save };
}
