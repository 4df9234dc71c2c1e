// A route the dashboard does not have (a mistyped or stale bookmark): say so and lead back, rather
// than show the dashboard under an address that is not its own.
import { Card } from "../components.tsx";
import { linkProps, useRoute } from "../router.ts";

export function NotFound() {
  const route = useRoute();
  return (
    <Card>
      <p data-testid="not-found">
        There is no page at <code class="wrap">/admin{route.split("?")[0]}</code>.
      </p>
      <p>
        <a {...linkProps("/")}>Go to the dashboard</a> or pick a page from the menu.
      </p>
    </Card>
  );
}
