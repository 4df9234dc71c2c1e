// Settings, backup: the Teleporter archive, downloaded and restored (Pi-hole's format, src/teleporter/).
import { useState } from "preact/hooks";
import { api, request } from "../../api.ts";
import { Button, Card, confirmAction, ErrorNote, useAction } from "../../components.tsx";
import { FileField } from "../../fields.tsx";
import { t } from "../../i18n.ts";

export function Backup() {
  const [busy, run] = useAction();
  const [file, setFile] = useState<File | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const exportIt = () =>
    run(async () => {
      const res = await request("GET", "/teleporter");
      const name =
        /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "moat-teleporter.zip";
      const a = document.createElement("a");
      a.href = URL.createObjectURL(await res.blob());
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    }, t("Backup downloaded"));
  const importIt = async (e: Event) => {
    e.preventDefault();
    if (
      !file ||
      !(await confirmAction(
        t("Restore {file}? It replaces the lists, domains, groups, clients and settings.", { file: file.name }),
        t("Restore"),
      ))
    )
      return;
    setError(null);
    const form = new FormData();
    form.append("file", file);
    const r = await run(() =>
      api<{ files: string[] }>("POST", "/teleporter", form).catch((err: unknown) => {
        setError(err);
        throw err;
      }),
    );
    if (r) setResult(t("Restored: {files}", { files: r.files.join(", ") }));
  };
  return (
    <Card title={t("Backup (Teleporter)")}>
      <div class="form">
        <p class="muted">
          {t(
            "A zip in Pi-hole's layout: lists, domains, groups, clients, settings and local DNS records. It moves to and from Pi-hole v6.",
          )}
        </p>
        <Button busy={busy} onClick={exportIt}>
          {t("Download backup")}
        </Button>
      </div>
      <form class="form" onSubmit={importIt}>
        <FileField label={t("Restore from a backup")} id="s-import" accept=".zip,application/zip" onFile={setFile} />
        <ErrorNote error={error} />
        {result && (
          <p class="note" data-testid="import-result">
            {result}
          </p>
        )}
        <div class="row">
          <Button type="submit" kind="danger" busy={busy} disabled={!file}>
            {t("Restore")}
          </Button>
        </div>
      </form>
    </Card>
  );
}
