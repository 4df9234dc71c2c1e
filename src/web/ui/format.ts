// How numbers, times and durations read on the page: Intl's formatters in the dashboard's language
// (made again when it changes), so "1,234" reads "1.234" in German and "٣" where Arabic digits are usual.
import { intlLocale, localized, t } from "./i18n.ts";

type Formatters = {
  locale: string;
  number: Intl.NumberFormat;
  time: Intl.DateTimeFormat;
  dateTime: Intl.DateTimeFormat;
  relative: Intl.RelativeTimeFormat;
  units: Record<"day" | "hour" | "minute" | "second", Intl.NumberFormat>;
};
let made: Formatters | undefined;

function formatters(): Formatters {
  const locale = intlLocale();
  if (made?.locale === locale) return made;
  const unit = (u: string) => new Intl.NumberFormat(locale, { style: "unit", unit: u, unitDisplay: "narrow" });
  made = {
    locale,
    number: new Intl.NumberFormat(locale),
    time: new Intl.DateTimeFormat(locale, { timeStyle: "medium" }),
    dateTime: new Intl.DateTimeFormat(locale, { dateStyle: "short", timeStyle: "medium" }),
    relative: new Intl.RelativeTimeFormat(locale, { numeric: "auto", style: "narrow" }),
    units: { day: unit("day"), hour: unit("hour"), minute: unit("minute"), second: unit("second") },
  };
  return made;
}

export const num = (n: number | null | undefined): string =>
  n === null || n === undefined ? "–" : formatters().number.format(n);

export const pct = (n: number): string => {
  const digits = n >= 10 || n === 0 ? 1 : 2;
  return new Intl.NumberFormat(intlLocale(), {
    style: "percent",
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(n / 100);
};

export function dateTime(unix: number): string {
  const d = new Date(unix * 1000);
  const today = new Date().toDateString() === d.toDateString();
  return localized((today ? formatters().time : formatters().dateTime).format(d));
}

/** A span of time in its two largest units ("2 d 5 h", "3 min 04 s" as the language writes them). */
export function duration(seconds: number): string {
  seconds = Math.max(0, Math.round(seconds));
  const { units } = formatters();
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const two = (a: string, b: string) => localized(`${a} ${b}`);
  if (d) return two(units.day.format(d), units.hour.format(h));
  if (h) return two(units.hour.format(h), units.minute.format(m));
  if (m) return two(units.minute.format(m), units.second.format(s));
  return localized(units.second.format(s));
}

export function bytes(kib: number): string {
  const n = (v: number, digits: number) =>
    new Intl.NumberFormat(intlLocale(), { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(v);
  if (kib >= 1024 * 1024) return `${n(kib / 1024 / 1024, 1)} GiB`;
  if (kib >= 1024) return `${n(kib / 1024, 0)} MiB`;
  return `${n(kib, 0)} KiB`;
}

/** How long ago `unix` was, in the largest unit that fits ("5 minutes ago", "yesterday"); "never" for 0. */
export function ago(unix: number): string {
  if (!unix) return t("never");
  const seconds = Math.round(unix - Date.now() / 1000);
  const abs = Math.abs(seconds);
  const { relative } = formatters();
  const [value, unit]: [number, Intl.RelativeTimeFormatUnit] =
    abs < 60
      ? [seconds, "second"]
      : abs < 3600
        ? [Math.round(seconds / 60), "minute"]
        : abs < 86400
          ? [Math.round(seconds / 3600), "hour"]
          : [Math.round(seconds / 86400), "day"];
  return localized(relative.format(value, unit));
}

/** Unix seconds as the value of a datetime-local input (the browser's time zone); "" for none. */
export function toLocalInput(unix: number | string | undefined): string {
  if (!unix) return "";
  const d = new Date(Number(unix) * 1000);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}

/** A datetime-local input's value as unix seconds; 0 when it is empty or not a time. */
export const fromLocalInput = (value: string): number => Math.floor(new Date(value).getTime() / 1000) || 0;
