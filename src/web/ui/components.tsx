// Small building blocks shared by the pages: buttons that show progress, fields that show the API's
// error beside them, confirmations, toasts.
import type { ButtonHTMLAttributes, ComponentChildren, JSX, PartialInputHTMLAttributes } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "./api.ts";
import { Store, useStore } from "./store.ts";
import { t } from "./i18n.ts";

export function Spinner({ label }: { label?: string }) {
  return <span class="spinner" role="status" aria-label={label ?? t("working")} />;
}

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  busy?: boolean;
  kind?: "primary" | "danger" | "ghost" | "";
};
export function Button({ busy, kind = "", children, class: cls, disabled, ...rest }: ButtonProps) {
  return (
    <button
      type="button"
      class={`btn ${kind} ${cls ?? ""}`}
      disabled={busy || (disabled as boolean)}
      aria-busy={busy}
      {...rest}
    >
      {busy && <Spinner />}
      {children}
    </button>
  );
}

export function Field({
  label,
  error,
  hint,
  children,
  id,
}: {
  label: string;
  error?: string | null | undefined;
  hint?: ComponentChildren;
  children: ComponentChildren;
  id?: string;
}) {
  return (
    <div class={`field ${error ? "invalid" : ""}`}>
      <label for={id}>{label}</label>
      {children}
      {hint && !error && (
        <small class="hint" id={id && `${id}-hint`}>
          {hint}
        </small>
      )}
      {error && (
        <small class="error" role="alert">
          {error}
        </small>
      )}
    </div>
  );
}

export function Card({
  title,
  actions,
  children,
  class: cls,
}: {
  title?: ComponentChildren;
  actions?: ComponentChildren;
  children: ComponentChildren;
  class?: string;
}) {
  return (
    <section class={`card ${cls ?? ""}`}>
      {(title || actions) && (
        <header class="card-head">
          {title && <h2>{title}</h2>}
          {actions && <div class="card-actions">{actions}</div>}
        </header>
      )}
      {children}
    </section>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof ApiError ? error.text : String((error as Error).message ?? error);
  return (
    <p class="note error" role="alert">
      {text}
    </p>
  );
}

// ---- toasts

type Toast = { id: number; text: string; kind: "ok" | "warn" | "error" };
const toasts = new Store<Toast[]>([]);
let nextToast = 1;

/** One toast at a time: a new one replaces the last, so repeated saves never stack over the page. */
export function toast(text: string, kind: Toast["kind"] = "ok"): void {
  const one = { id: nextToast++, text, kind };
  toasts.set([one]);
  setTimeout(() => toasts.set(toasts.get().filter((x) => x !== one)), kind === "ok" ? 3500 : 8000);
}

export function Toasts() {
  const list = useStore(toasts);
  return (
    <div class="toasts" aria-live="polite">
      {list.map((one) => (
        <div key={one.id} class={`toast ${one.kind}`}>
          {one.text}
        </div>
      ))}
    </div>
  );
}

/** runs an action with a busy flag; an error becomes a toast (or is returned for a field) */
export function useAction(): [boolean, <T>(fn: () => Promise<T>, done?: string) => Promise<T | undefined>] {
  const [busy, setBusy] = useState(false);
  const run = async <T,>(fn: () => Promise<T>, done?: string) => {
    setBusy(true);
    try {
      const r = await fn();
      if (done) toast(done);
      return r;
    } catch (e) {
      toast(e instanceof ApiError ? e.text : String((e as Error).message ?? e), "error");
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return [busy, run];
}

// ---- confirmation dialog

type Ask = { text: string; action: string | undefined; resolve: (ok: boolean) => void } | null;
const asking = new Store<Ask>(null);

/** asks before anything destructive (`text` and `action` already translated; Delete by default) */
export function confirmAction(text: string, action?: string): Promise<boolean> {
  return new Promise((resolve) => asking.set({ text, action, resolve }));
}

export function ConfirmHost() {
  const ask = useStore(asking);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (ask && ref.current && !ref.current.open) ref.current.showModal();
  }, [ask]);
  if (!ask) return null;
  const close = (ok: boolean) => {
    ref.current?.close();
    asking.set(null);
    ask.resolve(ok);
  };
  return (
    <dialog ref={ref} class="dialog" onCancel={() => close(false)} aria-labelledby="confirm-text">
      <p id="confirm-text">{ask.text}</p>
      <div class="row end">
        {/* Cancel has the focus, so Enter or a stray key press never deletes (WAI-ARIA APG, alert dialog) */}
        <Button onClick={() => close(false)} autoFocus>
          {t("Cancel")}
        </Button>
        <Button kind="danger" onClick={() => close(true)}>
          {ask.action ?? t("Delete")}
        </Button>
      </div>
    </dialog>
  );
}

/** a modal for forms (add/edit) */
export function Modal({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return (
    <dialog ref={ref} class="dialog wide" onCancel={(e) => (e.preventDefault(), onClose())} aria-label={title}>
      <header class="card-head">
        <h2>{title}</h2>
        <button type="button" class="icon-btn" aria-label={t("Close")} onClick={onClose}>
          ×
        </button>
      </header>
      {children}
    </dialog>
  );
}

export function Toggle({
  checked,
  onChange,
  label,
  disabled,
  id,
}: {
  checked: boolean;
  onChange: (v: boolean) => void;
  label: string;
  disabled?: boolean;
  /** for a visible <label for> beside the switch */
  id?: string;
}) {
  return (
    <label class="switch" title={label}>
      <input
        type="checkbox"
        role="switch"
        id={id}
        checked={checked}
        aria-checked={checked}
        disabled={disabled}
        aria-label={label}
        onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
      />
      <span class="slider" />
    </label>
  );
}

/** a coloured label; `title` is its tooltip (the API's own name of what the words say) */
export function Badge({ kind, title, children }: { kind: string; title?: string; children: ComponentChildren }) {
  return (
    <span class={`badge ${kind}`} title={title}>
      {children}
    </span>
  );
}

/** Newer/older pages of a log, newest first (page 0). */
export function Pager({ page, pages, onPage }: { page: number; pages: number; onPage: (page: number) => void }) {
  return (
    <div class="pager">
      <Button disabled={page === 0} onClick={() => onPage(page - 1)}>
        ← {t("Newer")}
      </Button>
      <span>{t("Page {page} of {pages}", { page: page + 1, pages })}</span>
      <Button disabled={page + 1 >= pages} onClick={() => onPage(page + 1)}>
        {t("Older")} →
      </Button>
    </div>
  );
}

export function Loading() {
  return (
    <p class="loading">
      <Spinner /> {t("Loading…")}
    </p>
  );
}

/** an input whose every keystroke hands its text to `onValue` (a state setter, mostly) */
export function TextInput({
  onValue,
  ...rest
}: Omit<PartialInputHTMLAttributes<HTMLInputElement>, "onInput" | "role"> & {
  list?: string;
  onValue: (v: string) => void;
}) {
  // Preact types an input's attributes as a union by `type`, which a spread of known props cannot narrow
  const attrs = rest as JSX.IntrinsicElements["input"];
  return <input {...attrs} onInput={(e) => onValue((e.target as HTMLInputElement).value)} />;
}
