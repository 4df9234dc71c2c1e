// The language picker (header, login, first-run setup): every language by its own name; the choice is
// remembered in this browser.
import { toast } from "./components.tsx";
import { t } from "./i18n.ts";
import { language, offered, setLanguage } from "./locale.ts";
import { useStore } from "./store.ts";

export function LanguagePicker({ id }: { id?: string }) {
  const current = useStore(language);
  return (
    <select
      id={id}
      class="lang-pick"
      aria-label={t("Language")}
      value={current}
      data-raw
      onChange={(e) => {
        const select = e.currentTarget;
        // a catalogue that does not come leaves the page in its language, and the picker shows that one
        setLanguage(select.value, true).catch(() => {
          select.value = language.get();
          toast(t("The language could not be loaded. Try again."), "error");
        });
      }}
    >
      {offered().map((l) => (
        <option key={l.tag} value={l.tag} lang={l.tag}>
          {l.name}
        </option>
      ))}
    </select>
  );
}
