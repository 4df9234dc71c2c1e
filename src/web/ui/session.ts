// Who is looking: "open" (no password set, no login), "in" (a session), "out" (login needed).
// A 401 from any request remembers the page and shows the login; logging in returns to it.
import { hasCsrf, request, setCsrf, whenUnauthorized } from "./api.ts";
import { currentPath, navigate } from "./router.ts";
import { Store } from "./store.ts";

export type Session = { state: "checking" | "open" | "in" | "out"; totp: boolean; reason?: string };
export const session = new Store<Session>({ state: "checking", totp: false });

const BACK_KEY = "moat.back";

function loggedOut(reason?: string): void {
  if (session.get().state === "out") return;
  const here = currentPath();
  if (!here.startsWith("/login")) sessionStorage.setItem(BACK_KEY, here);
  setCsrf(null);
  session.set({ state: "out", totp: session.get().totp, ...(reason ? { reason } : {}) });
}

whenUnauthorized(() => loggedOut("Your session has expired. Please log in again."));

type AuthReply = { session: { valid: boolean; totp: boolean; sid: string | null; csrf?: string; message: string } };

/** the login at the start, which returns to the page asked for */
function loggedOutAtStart(totp: boolean): void {
  setCsrf(null);
  const here = currentPath();
  if (here === "/") sessionStorage.removeItem(BACK_KEY);
  else sessionStorage.setItem(BACK_KEY, here);
  session.set({ state: "out", totp, ...(session.get().reason ? { reason: session.get().reason } : {}) });
}

type LoginInfo = { password?: boolean; totp?: boolean };

export async function checkSession(): Promise<void> {
  // Without a CSRF token this browser has no session the page could use: the public GET
  // /api/info/login says whether a login is needed, where GET /api/auth would answer 401, which the
  // browser logs as an error on every fresh login page. (Pi-hole compatibility mode leaves its fields
  // out; then GET /api/auth says it.)
  if (!hasCsrf()) {
    const info = (await (await fetch("/api/info/login")).json().catch(() => ({}))) as LoginInfo;
    if (info.password === false) return session.set({ state: "open", totp: false });
    if (info.password === true) return loggedOutAtStart(info.totp ?? false);
  }
  // not through request(): a 401 here is the answer (logged out, and whether 2FA is on), not an expiry.
  // Only that answer ends the session here: a reply cut short (the page left while it came, a dropped
  // connection) throws, and the caller says Moat did not answer, keeping the token for the next load.
  const res = await fetch("/api/auth", { credentials: "same-origin" });
  if (res.status === 401) {
    const refused = (await res.json().catch(() => ({}))) as Partial<AuthReply>;
    return loggedOutAtStart(refused.session?.totp ?? false);
  }
  const body = (await res.json()) as Partial<AuthReply>;
  if (!body.session) throw new Error(`GET /api/auth answered ${res.status} without a session`);
  if (body.session.sid === null) session.set({ state: "open", totp: false });
  else {
    if (body.session.csrf) setCsrf(body.session.csrf);
    session.set({ state: "in", totp: body.session.totp });
  }
}

export async function login(password: string, totp: string): Promise<void> {
  const res = await request("POST", "/auth", { password, ...(totp ? { totp } : {}) }, { auth: false });
  const body = (await res.json()) as AuthReply;
  setCsrf(body.session.csrf ?? null);
  session.set({ state: body.session.sid === null ? "open" : "in", totp: body.session.totp });
  const back = sessionStorage.getItem(BACK_KEY);
  sessionStorage.removeItem(BACK_KEY);
  navigate(back && !back.startsWith("/login") ? back : "/", true);
}

/**
 * Ends this session through DELETE /api/auth/session/{id} (204), not DELETE /api/auth, whose 410 (its
 * answer outside Pi-hole compatibility mode, docs/pihole-differences.md) the browser logs as an error.
 * Nothing is asked afterwards (a GET /api/auth would be a 401, logged as well): whether the next login
 * needs a 2FA code is known, or given by the caller that just turned it on or off.
 */
export async function logout(totp = session.get().totp): Promise<void> {
  try {
    const res = await request("GET", "/auth/sessions", undefined, { auth: false });
    const { sessions } = (await res.json()) as { sessions: Array<{ id: number; current_session: boolean }> };
    const mine = sessions.find((x) => x.current_session);
    if (mine) await request("DELETE", `/auth/session/${mine.id}`, undefined, { auth: false });
  } catch {
    // the session had already ended (a new password ends them all)
  }
  setCsrf(null);
  sessionStorage.setItem(BACK_KEY, currentPath());
  session.set({ state: "out", totp });
}
