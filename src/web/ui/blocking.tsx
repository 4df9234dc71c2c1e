// The blocking switch in the header, on every page: on/off, and off for 5 min, 1 h, a custom time
// or until switched back, with the time left counting down.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, get } from "./api.ts";
import { Button, Spinner, toast } from "./components.tsx";
import { duration } from "./format.ts";
import { usePoll } from "./poll.ts";
import { t } from "./i18n.ts";

type Blocking = { blocking: boolean | "enabled" | "disabled"; timer: number | null };
const isOn = (b: Blocking) => b.blocking === true || b.blocking === "enabled";

export function BlockingControl() {
  const { data, reload } = usePoll(() => get<Blocking>("/dns/blocking"), 30000);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [custom, setCustom] = useState("10");
  const [left, setLeft] = useState<number | null>(null);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!data?.timer) return setLeft(null);
    const until = Date.now() + data.timer * 1000;
    setLeft(data.timer);
    const t = setInterval(() => {
      const s = (until - Date.now()) / 1000;
      setLeft(s);
      if (s <= 0) {
        clearInterval(t);
        setTimeout(reload, 600);
      }
    }, 1000);
    return () => clearInterval(t);
  }, [data]);

  // the WAI-ARIA APG menu button: opening focuses the first item, arrows (and Home/End) move
  // between the items, Escape closes and gives the focus back to the button
  const items = () => [...(box.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
  useEffect(() => {
    if (open) items()[0]?.focus();
  }, [open]);
  const onMenuKey = (e: KeyboardEvent) => {
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLElement);
    const go = (i: number) => {
      e.preventDefault();
      list[(i + list.length) % list.length]?.focus();
    };
    if (e.key === "Escape") {
      e.preventDefault();
      setOpen(false);
      box.current?.querySelector<HTMLElement>('[aria-controls="blocking-menu"]')?.focus();
    } else if ((e.target as HTMLElement).tagName === "INPUT") {
      // the minutes field keeps its own arrow keys
    } else if (e.key === "ArrowDown") go(at + 1);
    else if (e.key === "ArrowUp") go(at < 0 ? list.length - 1 : at - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(list.length - 1);
  };

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("click", close);
    return () => document.removeEventListener("click", close);
  }, [open]);

  const set = async (blocking: boolean, timer: number | null) => {
    setBusy(true);
    setOpen(false);
    try {
      await api("POST", "/dns/blocking", { blocking, timer });
      toast(
        blocking
          ? t("Blocking enabled")
          : timer
            ? t("Blocking disabled for {time}", { time: duration(timer) })
            : t("Blocking disabled"),
      );
      reload();
    } catch (e) {
      toast(String((e as Error).message), "error");
    } finally {
      setBusy(false);
    }
  };

  if (!data)
    return (
      <div class="blocking">
        <Spinner />
      </div>
    );
  const on = isOn(data);
  return (
    <div class="blocking" ref={box}>
      <span class={`state ${on ? "on" : "off"}`} data-testid="blocking-state">
        <span class="dot" aria-hidden="true" />
        {on ? t("Blocking") : t("Not blocking")}
        {!on && left !== null && <span class="timer"> · {duration(left)}</span>}
      </span>
      {on ? (
        <Button
          busy={busy}
          aria-haspopup="menu"
          aria-expanded={open}
          aria-controls="blocking-menu"
          onClick={() => setOpen(!open)}
        >
          {t("Disable")} ▾
        </Button>
      ) : (
        <Button kind="primary" busy={busy} onClick={() => set(true, null)}>
          {t("Enable")}
        </Button>
      )}
      {open && (
        <div class="menu" role="menu" id="blocking-menu" aria-label={t("Disable blocking")} onKeyDown={onMenuKey}>
          <button type="button" role="menuitem" onClick={() => set(false, 300)}>
            {t("For 5 minutes")}
          </button>
          <button type="button" role="menuitem" onClick={() => set(false, 3600)}>
            {t("For 1 hour")}
          </button>
          <form
            class="menu-custom"
            onSubmit={(e) => {
              e.preventDefault();
              const m = Number(custom);
              if (m > 0) void set(false, Math.round(m * 60));
            }}
          >
            <label>
              {t("For")}
              <input
                type="number"
                min="1"
                step="1"
                value={custom}
                aria-label={t("minutes")}
                onInput={(e) => setCustom((e.target as HTMLInputElement).value)}
              />
              {t("min")}
            </label>
            <button type="submit" class="btn">
              {t("Go")}
            </button>
          </form>
          <button type="button" role="menuitem" class="danger-text" onClick={() => set(false, null)}>
            {t("Until I enable it")}
          </button>
        </div>
      )}
    </div>
  );
}
