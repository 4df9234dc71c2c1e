// Settings, security: the password, two-factor authentication (TOTP with its QR code) and the app password.
import { useState } from "preact/hooks";
import { get } from "../../api.ts";
import { Button, Card, confirmAction, Field, useAction, TextInput } from "../../components.tsx";
import { t } from "../../i18n.ts";
import { NewPasswordInput } from "../../fields.tsx";
import { Qr } from "../../qr.tsx";
import { logout, session } from "../../session.ts";
import { useStore } from "../../store.ts";
import { saveConfig } from "./save.ts";
import { SettingField } from "./env.tsx";

type Totp = {
  totp: { account: string; issuer: string; secret: string; digits: number; period: number; algorithm: string };
};

export function SecuritySettings() {
  const s = useStore(session);
  const [pw, setPw] = useState("");
  const [pw2, setPw2] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, run] = useAction();
  const [totp, setTotp] = useState<Totp["totp"] | null>(null);
  const [code, setCode] = useState("");
  const [app, setApp] = useState<{ password: string; hash: string } | null>(null);
  const changePw = async (e: Event) => {
    e.preventDefault();
    if (pw !== pw2) return setErrors({ pw2: t("The passwords differ") });
    if (
      !pw &&
      !(await confirmAction(
        t("Remove the password? Anyone on your network can then change Moat's settings."),
        t("Remove password"),
      ))
    )
      return;
    if (await saveConfig({ "webserver.api.password": pw }, setErrors)) {
      setPw("");
      setPw2("");
      // every session ends with a new password
      if (pw) await logout();
      else session.set({ state: "open", totp: false });
    }
  };
  const enrol = async () => {
    const r = await run(() => get<Totp>("/auth/totp"));
    if (r) setTotp(r.totp);
  };
  const confirmTotp = async (e: Event) => {
    e.preventDefault();
    if (!totp) return;
    if (!(await verify(totp.secret, code, totp.period)))
      return setErrors({ totp: t("That code does not match. Check the time on your phone and try the next code.") });
    if (await saveConfig({ "webserver.api.totp_secret": totp.secret }, setErrors)) {
      setTotp(null);
      await logout(true);
    }
  };
  const disableTotp = async () => {
    if (!(await confirmAction(t("Turn off two-factor authentication?"), t("Turn off")))) return;
    if (await saveConfig({ "webserver.api.totp_secret": "" }, setErrors)) await logout(false);
  };
  const makeApp = async () => {
    const r = await run(() => get<{ app: { password: string; hash: string } }>("/auth/app"));
    if (r) setApp(r.app);
  };
  const saveApp = async () => {
    if (app && (await saveConfig({ "webserver.api.app_pwhash": app.hash }, setErrors))) setApp({ ...app, hash: "" });
  };
  const uri = totp
    ? `otpauth://totp/${totp.issuer}:${encodeURIComponent(totp.account)}?secret=${totp.secret}&issuer=${totp.issuer}&algorithm=${totp.algorithm}&digits=${totp.digits}&period=${totp.period}`
    : "";
  return (
    <Card title={t("Security")}>
      <form class="form" onSubmit={changePw}>
        <h3>{t("Password")}</h3>
        <div class="row wrap">
          <SettingField setting="webserver.api.password" errors={errors} label={t("New password")} id="s-pw">
            <NewPasswordInput id="s-pw" value={pw} onValue={setPw} />
          </SettingField>
          <Field label={t("Again")} id="s-pw2" error={errors.pw2}>
            <NewPasswordInput id="s-pw2" value={pw2} onValue={setPw2} />
          </Field>
          <Button type="submit" class="align-end">
            {s.state === "open" ? t("Set password") : t("Change password")}
          </Button>
        </div>
        <small class="muted">{t("Changing it logs out every session. An empty password removes it.")}</small>
      </form>
      <div class="form">
        <h3>{t("Two-factor authentication")}</h3>
        {s.totp ? (
          <div class="row">
            <span>{t("On.")}</span>
            <Button kind="danger" onClick={disableTotp}>
              {t("Turn off")}
            </Button>
          </div>
        ) : totp ? (
          <form class="totp" onSubmit={confirmTotp}>
            <Qr text={uri} label={t("QR code for your authenticator app")} />
            <div class="stack">
              <p>{t("Scan this with your authenticator app, or enter the secret by hand:")}</p>
              <code class="secret" data-testid="totp-secret">
                {totp.secret}
              </code>
              <Field
                label={t("Code from the app")}
                id="s-totp"
                error={errors.totp ?? errors["webserver.api.totp_secret"]}
              >
                <TextInput id="s-totp" inputMode="numeric" maxLength={6} required value={code} onValue={setCode} />
              </Field>
              <div class="row">
                <Button type="submit" kind="primary">
                  {t("Turn on")}
                </Button>
                <Button kind="ghost" onClick={() => setTotp(null)}>
                  {t("Cancel")}
                </Button>
              </div>
            </div>
          </form>
        ) : (
          <Button
            busy={busy}
            disabled={s.state === "open"}
            onClick={enrol}
            title={s.state === "open" ? t("Set a password first") : ""}
          >
            {t("Set up two-factor authentication")}
          </Button>
        )}
      </div>
      <div class="form">
        <h3>{t("App password")}</h3>
        <p class="muted">{t("For scripts and apps: logs in without 2FA. Making a new one replaces the old one.")}</p>
        {app ? (
          <div class="stack">
            <code class="secret" data-testid="app-password">
              {app.password}
            </code>
            {app.hash ? (
              <div class="row">
                <Button kind="primary" onClick={saveApp}>
                  {t("Use this app password")}
                </Button>
                <Button kind="ghost" onClick={() => setApp(null)}>
                  {t("Cancel")}
                </Button>
              </div>
            ) : (
              <p class="note">{t("Saved. Copy it now: it is not shown again.")}</p>
            )}
          </div>
        ) : (
          <Button busy={busy} onClick={makeApp}>
            {t("New app password")}
          </Button>
        )}
      </div>
    </Card>
  );
}

/** RFC 6238 check in the browser before the secret is stored (so a mistyped enrolment cannot lock anyone out) */
async function verify(secretB32: string, code: string, period: number): Promise<boolean> {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = "";
  for (const ch of secretB32.replace(/=+$/, "").toUpperCase())
    bits += alphabet.indexOf(ch).toString(2).padStart(5, "0");
  const key = new Uint8Array(Math.floor(bits.length / 8)).map((_, i) => parseInt(bits.slice(i * 8, i * 8 + 8), 2));
  if (!crypto.subtle) return true; // plain HTTP from another host: the server checks the code at the next login
  const k = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-1" }, false, ["sign"]);
  const now = Math.floor(Date.now() / 1000 / period);
  for (const step of [now - 1, now, now + 1]) {
    const msg = new DataView(new ArrayBuffer(8));
    msg.setUint32(4, step);
    const h = new Uint8Array(await crypto.subtle.sign("HMAC", k, msg));
    const o = h[19]! & 15;
    const n = (((h[o]! & 127) << 24) | (h[o + 1]! << 16) | (h[o + 2]! << 8) | h[o + 3]!) % 1_000_000;
    if (String(n).padStart(6, "0") === code.trim()) return true;
  }
  return false;
}
