// Saving a few config keys from a settings card: the API's error goes under the key it names
// (a key of the card, or one below it), else under "form". Only the keys whose value changed are
// sent: the API refuses any write to a key the environment sets (FTLCONF_…), even an unchanged one.
import { ApiError, patchConfig } from "../../api.ts";
import { toast } from "../../components.tsx";
import { messagesMayChange } from "../../messages.tsx";

export async function saveKeys(
  values: Record<string, unknown>,
  setErrors: (e: Record<string, string>) => void,
  before: Record<string, unknown>,
): Promise<boolean> {
  setErrors({});
  const changed = Object.fromEntries(
    Object.entries(values).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k])),
  );
  if (Object.keys(changed).length === 0) {
    toast("Nothing changed");
    return false;
  }
  try {
    await patchConfig(changed);
    toast("Saved");
    messagesMayChange.set(messagesMayChange.get() + 1);
    return true;
  } catch (e) {
    if (!(e instanceof ApiError)) {
      setErrors({ form: String(e) });
      return false;
    }
    const f = e.field;
    const key = f && f in values ? f : (Object.keys(values).find((k) => f?.startsWith(`${k}`)) ?? "form");
    setErrors({ [key]: e.text });
    return false;
  }
}
