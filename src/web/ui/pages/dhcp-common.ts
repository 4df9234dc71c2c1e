// What the DHCP page's parts share: the address and lease-time checks the server makes, and saving
// dhcp.* settings with the API's error placed at the field it names.
import { ApiError, patchConfig } from "../api.ts";
import { toast } from "../components.tsx";
import { t } from "../i18n.ts";
import { messagesMayChange } from "../messages.tsx";

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
export const isIPv4 = (s: string) => IPV4.test(s);
export const ipNum = (s: string) => s.split(".").reduce((n, o) => n * 256 + Number(o), 0);
/** dnsmasq's lease-time spelling, as src/dhcp/settings.ts reads it */
export const LEASE_TIME = /^(\d+[smhdw]?|infinite)$/i;
export const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** PATCH /api/config; an error lands at the key it names, else under "form" */
export async function saveDhcp(
  values: Record<string, unknown>,
  setErrors: (e: Record<string, string>) => void,
): Promise<boolean> {
  setErrors({});
  try {
    await patchConfig(values);
    toast(t("Saved"));
    messagesMayChange.set(messagesMayChange.get() + 1);
    return true;
  } catch (e) {
    const key =
      e instanceof ApiError && e.field ? (Object.keys(values).find((k) => e.field!.startsWith(k)) ?? "form") : "form";
    setErrors({ [key]: e instanceof ApiError ? e.text : String(e) });
    return false;
  }
}
