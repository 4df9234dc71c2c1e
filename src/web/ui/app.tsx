// The frame around every page: header (brand, blocking switch, logout), navigation, and the page
// for the current route; or the login / first-run setup when those come first. Titles are msg()
// labels, shown through t() when rendering.
import type { ComponentType } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { BlockingControl } from "./blocking.tsx";
import { ConfirmHost, Loading, Toasts } from "./components.tsx";
import { MessageBadge, MessageBanners, MessagesPoll } from "./messages.tsx";
import { Clients } from "./pages/clients.tsx";
import { Dashboard } from "./pages/dashboard.tsx";
import { Dhcp } from "./pages/dhcp.tsx";
import { Domains } from "./pages/domains.tsx";
import { Groups } from "./pages/groups.tsx";
import { Guide } from "./pages/guide.tsx";
import { Family } from "./pages/family.tsx";
import { Lists } from "./pages/lists.tsx";
import { LocalDns } from "./pages/localdns.tsx";
import { LongTerm } from "./pages/longterm.tsx";
import { Login } from "./pages/login.tsx";
import { Network } from "./pages/network.tsx";
import { NotFound } from "./pages/notfound.tsx";
import { Messages } from "./pages/messages.tsx";
import { QueryLog } from "./pages/queries.tsx";
import { Rules } from "./pages/rules.tsx";
import { Search } from "./pages/search.tsx";
import { Settings } from "./pages/settings.tsx";
import { AllSettings } from "./pages/settings/all.tsx";
import { Setup, useSetupNeeded } from "./pages/setup.tsx";
import { Tools } from "./pages/tools.tsx";
import { linkProps, useRoute } from "./router.ts";
import { checkSession, logout, session } from "./session.ts";
import { useStore } from "./store.ts";
import { Theme } from "./theme.tsx";
import { msg, t } from "./i18n.ts";
import { LanguagePicker } from "./language.tsx";

const PAGES: Array<{ path: string; title: string; page: ComponentType }> = [
  { path: "/", title: msg("Dashboard"), page: Dashboard },
  { path: "/queries", title: msg("Query log"), page: QueryLog },
  { path: "/longterm", title: msg("Long-term data"), page: LongTerm },
  { path: "/domains", title: msg("Domains"), page: Domains },
  { path: "/lists", title: msg("Lists"), page: Lists },
  { path: "/rules", title: msg("Custom rules"), page: Rules },
  { path: "/groups", title: msg("Groups"), page: Groups },
  { path: "/clients", title: msg("Clients"), page: Clients },
  { path: "/family", title: msg("Family controls"), page: Family },
  { path: "/network", title: msg("Network"), page: Network },
  { path: "/dns", title: msg("Local DNS"), page: LocalDns },
  { path: "/dhcp", title: msg("DHCP"), page: Dhcp },
  { path: "/guide", title: msg("Setup guide"), page: Guide },
  { path: "/search", title: msg("Search"), page: Search },
  { path: "/settings", title: msg("Settings"), page: Settings },
  { path: "/settings/all", title: msg("All settings"), page: AllSettings },
  { path: "/messages", title: msg("Messages"), page: Messages },
  { path: "/tools", title: msg("Tools"), page: Tools },
];

/** any other route: not one of the pages (kept out of the menu) */
const NOT_FOUND = { path: "*", title: msg("Page not found"), page: NotFound };

export function App() {
  const s = useStore(session);
  const route = useRoute();
  const [menu, setMenu] = useState(false);
  const setup = useSetupNeeded(s.state === "open" || s.state === "in");
  // once per page load: a new language draws the App anew (main.tsx), which asks nothing again
  useEffect(() => {
    if (session.get().state !== "checking") return;
    void checkSession().catch(() =>
      session.set({ state: "out", totp: false, reason: t("Moat did not answer. Is it running?") }),
    );
  }, []);
  useEffect(() => setMenu(false), [route]);
  const path = route.split("?")[0]!.replace(/\/+$/, "") || "/";
  const current = PAGES.find((p) => p.path === path) ?? NOT_FOUND;
  useEffect(() => void (document.title = `${t(current.title)} · Moat`), [current]);
  // after a page change the focus goes to the new page's heading, so keyboard and screen-reader
  // users start there rather than on the link they left (not on the first load: the page has it)
  const heading = useRef<HTMLHeadingElement>(null);
  const shown = useRef(path);
  useEffect(() => {
    if (shown.current === path) return;
    shown.current = path;
    heading.current?.focus();
  }, [path]);

  if (s.state === "checking" || (setup === null && s.state !== "out")) return <Loading />;
  if (s.state === "out") return <Login totp={s.totp} reason={s.reason} />;
  if (setup) return <Setup />;

  const Page = current.page;
  return (
    <div class={`shell ${menu ? "menu-open" : ""}`}>
      <a class="skip" href="#main">
        {t("Skip to content")}
      </a>
      <header class="top">
        <button
          type="button"
          class="icon-btn nav-toggle"
          aria-label={t("Menu")}
          aria-expanded={menu}
          onClick={() => setMenu(!menu)}
        >
          ☰
        </button>
        <a class="brand" {...linkProps("/")} data-raw>
          <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
            <path d="M12 2 3 6v6c0 5 3.8 9.3 9 10 5.2-.7 9-5 9-10V6z" fill="currentColor" opacity=".9" />
            <path d="M7 13c1.5 1 3.5 1 5 0s3.5-1 5 0" stroke="var(--bg)" stroke-width="1.6" fill="none" />
          </svg>
          Moat
        </a>
        <div class="top-right">
          <LanguagePicker />
          <MessageBadge />
          <BlockingControl />
          <Theme />
          {s.state === "in" && (
            <button type="button" class="btn ghost top-logout" onClick={() => void logout()}>
              {t("Log out")}
            </button>
          )}
        </div>
      </header>
      <nav class="side" aria-label={t("Pages")}>
        {PAGES.map((p) => (
          <a
            key={p.path}
            {...linkProps(p.path)}
            class={p === current ? "active" : ""}
            aria-current={p === current ? "page" : undefined}
          >
            {t(p.title)}
          </a>
        ))}
        {/* on a phone the header has no room for the language: it is at the menu's end */}
        <div class="nav-lang">
          <LanguagePicker />
        </div>
        {s.state === "in" && (
          <button type="button" class="nav-logout" onClick={() => void logout()}>
            {t("Log out")}
          </button>
        )}
      </nav>
      {/* the dimmed backdrop of the phone menu: a click closes it; the keyboard has the Menu button */}
      <button type="button" class="scrim" tabIndex={-1} aria-label={t("Close menu")} onClick={() => setMenu(false)} />
      <main id="main" tabIndex={-1}>
        <MessageBanners />
        <h1 class="page-title" tabIndex={-1} ref={heading}>
          {t(current.title)}
        </h1>
        <Page key={current.path} />
      </main>
      <MessagesPoll />
      <ConfirmHost />
      <Toasts />
    </div>
  );
}
