// A route the dashboard does not have (a mistyped or stale bookmark): say so and lead back, rather
// than show the dashboard under an address that is not its own.
import { Card } from "../components.tsx";
import { linkProps, useRoute } from "../router.ts";
import { t, tx } from "../i18n.ts";

export function NotFound() {
  const route = useRoute();
  return (
    <Card>
      <p data-testid="not-found">
        {tx("There is no page at {path}.", {
          path: (
            <code class="wrap" data-raw>
              /admin{route.split("?")[0]}
            </code>
          ),
        })}
      </p>
      <p>
        {tx("{link} or pick a page from the menu.", { link: <a {...linkProps("/")}>{t("Go to the dashboard")}</a> })}
      </p>
    </Card>
  );
}
