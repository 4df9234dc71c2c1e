// The dashboard's tables of rows: scrolled sideways on a narrow screen (`.table-wrap`), one header row.
import type { ComponentChildren } from "preact";
import { t } from "./i18n.ts";

export function DataTable({
  head,
  children,
  class: cls,
  testId,
}: {
  /** the header row's cells */
  head: ComponentChildren;
  children: ComponentChildren;
  class?: string;
  testId?: string;
}) {
  return (
    <div class="table-wrap">
      <table class={cls ? `table ${cls}` : "table"} data-testid={testId}>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** the header of the row buttons' column: named for a screen reader, blank on screen */
export function ActionsHeader() {
  return (
    <th>
      <span class="sr-only">{t("Actions")}</span>
    </th>
  );
}
