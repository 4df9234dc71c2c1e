// The sessions with a login now (GET /api/auth/sessions): where from, which browser, since when;
// each can be ended (DELETE /api/auth/session/{id}). "Log out everywhere" ends every session,
// this one last, and so comes back to the login: after a lost phone or a shared password, no
// browser should stay logged in, including the one doing the cleaning.
import { api, get } from "../../api.ts";
import { Button, Card, confirmAction, ErrorNote, Loading, useAction } from "../../components.tsx";
import { Heads } from "../../fields.tsx";
import { ago, dateTime } from "../../format.ts";
import { t } from "../../i18n.ts";
import { usePoll } from "../../poll.ts";
import { logout, session } from "../../session.ts";
import { useStore } from "../../store.ts";
import { DataTable } from "../../table.tsx";

type SessionRow = {
  id: number;
  current_session: boolean;
  app: boolean;
  cli: boolean;
  tls: { login: boolean };
  login_at: number;
  last_active: number;
  valid_until: number;
  remote_addr: string;
  user_agent: string | null;
};

/** "Firefox on Linux" from a user agent, else the agent itself */
function browserOf(ua: string | null): string {
  if (!ua) return t("unknown");
  const b = /(Edg|Firefox|Chrome|Chromium|Safari|curl|python-requests)\//.exec(ua)?.[1];
  const os = /(Android|iPhone|iPad|Mac OS X|Windows|Linux)/.exec(ua)?.[1];
  const browser = b === "Edg" ? "Edge" : b;
  if (!browser) return ua.slice(0, 60);
  return os ? t("{browser} on {system}", { browser, system: os }) : browser;
}

export function SessionsCard() {
  const s = useStore(session);
  const [busy, run] = useAction();
  const { data, error, reload } = usePoll(
    () => get<{ sessions: SessionRow[] }>("/auth/sessions").then((r) => r.sessions),
    30000,
  );
  if (s.state !== "in")
    return (
      <Card title={t("Sessions")}>
        <p class="muted">{t("No password is set, so there are no logins to list.")}</p>
      </Card>
    );
  const end = async (row: SessionRow) => {
    const what = row.current_session ? t("End this session? You will need to log in again.") : t("End this session?");
    if (!(await confirmAction(what, t("End session")))) return;
    if (row.current_session) return void (await logout());
    await run(() => api("DELETE", `/auth/session/${row.id}`), t("Session ended"));
    reload();
  };
  const everywhere = async () => {
    if (!(await confirmAction(t("End every session, this one too? Everyone logs in again."), t("Log out everywhere"))))
      return;
    const others = (data ?? []).filter((r) => !r.current_session);
    const ok = await run(async () => {
      for (const r of others) await api("DELETE", `/auth/session/${r.id}`);
      return true;
    });
    if (ok) await logout();
  };
  return (
    <Card
      title={t("Sessions")}
      actions={
        <Button kind="danger" busy={busy} onClick={everywhere}>
          {t("Log out everywhere")}
        </Button>
      }
    >
      <ErrorNote error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <DataTable
          testId="sessions"
          head={<Heads titles={[t("From"), t("Browser"), t("Logged in"), t("Last active")]} />}
        >
          {data.map((r) => (
            <tr key={r.id} data-session={r.id}>
              <td>
                {r.remote_addr} {r.current_session && <span class="badge ok">{t("this one")}</span>}{" "}
                {r.app && <span class="badge info">{t("app password")}</span>}
                {r.cli && <span class="badge info">CLI</span>}
              </td>
              <td title={r.user_agent ?? ""}>{browserOf(r.user_agent)}</td>
              <td>{dateTime(r.login_at)}</td>
              <td>{ago(r.last_active)}</td>
              <td class="num">
                <Button kind="ghost" busy={busy} onClick={() => end(r)}>
                  {t("End")}
                </Button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}
