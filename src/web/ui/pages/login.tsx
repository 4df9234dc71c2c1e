// The login: password, and the 2FA code when TOTP is on.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { Button, Field, TextInput } from "../components.tsx";
import { login } from "../session.ts";
import { t } from "../i18n.ts";
import { LanguagePicker } from "../language.tsx";

export function Login({ totp, reason }: { totp: boolean; reason?: string | undefined }) {
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // the cursor starts in the password field: this page has nothing else to do
  const passwordRef = useRef<HTMLInputElement>(null);
  useEffect(() => passwordRef.current?.focus(), []);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(password, code.trim());
    } catch (err) {
      setError(
        err instanceof ApiError
          ? err.status === 401
            ? totp
              ? t("Wrong password or code")
              : t("Wrong password")
            : err.text
          : String(err),
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card login-card" onSubmit={submit}>
        <div class="login-head">
          <h1>Moat</h1>
          <LanguagePicker />
        </div>
        {reason && <p class="note">{reason}</p>}
        <Field label={t("Password")} id="password" error={error}>
          <TextInput
            ref={passwordRef}
            id="password"
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onValue={setPassword}
          />
        </Field>
        {totp && (
          <Field label={t("Two-factor code")} id="totp" hint={t("The 6-digit code from your authenticator app")}>
            <TextInput
              id="totp"
              inputMode="numeric"
              autoComplete="one-time-code"
              pattern="[0-9]{6}"
              maxLength={6}
              required
              value={code}
              onValue={setCode}
            />
          </Field>
        )}
        <Button type="submit" kind="primary" busy={busy} class="wide">
          {t("Log in")}
        </Button>
      </form>
    </main>
  );
}
