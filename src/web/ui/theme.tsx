// Light, dark, or as the system says; remembered in this browser.
import { useEffect, useState } from "preact/hooks";
import { t } from "./i18n.ts";

const KEY = "moat.theme";
type Mode = "auto" | "light" | "dark";

function applyTheme(mode: Mode): void {
  if (mode === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = mode;
}
applyTheme((localStorage.getItem(KEY) as Mode | null) ?? "auto");

export function Theme() {
  const [mode, setMode] = useState<Mode>((localStorage.getItem(KEY) as Mode | null) ?? "auto");
  useEffect(() => {
    applyTheme(mode);
    localStorage.setItem(KEY, mode);
  }, [mode]);
  const next: Record<Mode, Mode> = { auto: "light", light: "dark", dark: "auto" };
  const label = { auto: "◐", light: "☀", dark: "☾" }[mode];
  const name = { auto: t("as the system"), light: t("light"), dark: t("dark") };
  return (
    <button
      type="button"
      class="icon-btn"
      title={t("Theme: {mode}", { mode: name[mode] })}
      aria-label={t("Theme: {mode}, switch to {next}", { mode: name[mode], next: name[next[mode]] })}
      onClick={() => setMode(next[mode])}
    >
      {label}
    </button>
  );
}
