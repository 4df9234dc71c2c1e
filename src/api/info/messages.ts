// GET /api/info/messages, its count, and DELETE by id: the warnings Moat raised (src/messages/).
import { Elysia, t } from "elysia";
import type { Context } from "../../core/runtime.ts";
import type { Messages } from "../../messages/messages.ts";
import { ApiError, Errors } from "../core/errors.ts";

const esc = (s: string) => s.replace(/[&<>"]/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function messageRoutes(rt: Context & { messages: Messages }) {
  const { messages } = rt;
  return new Elysia({ name: "info-messages" })
    .get(
      "/info/messages",
      () => {
        // Pi-hole folds the blobs into its texts; Moat's texts already name what the blobs hold, which
        // are served apart for a client that wants them, where a message has any (and not in
        // compatibility mode, whose replies keep Pi-hole's five keys)
        const compat = rt.config.current.webserver.api.piholeCompat;
        return {
          messages: messages.list().map((m) => ({
            id: m.id,
            timestamp: m.timestamp,
            type: m.type,
            plain: m.text,
            html: esc(m.text),
            ...(compat || m.blobs.every((b) => b === null) ? {} : { blobs: m.blobs }),
          })),
        };
      },
      {
        response: t.Object({
          messages: t.Array(
            t.Object({
              id: t.Integer(),
              timestamp: t.Number(),
              type: t.String(),
              plain: t.String(),
              html: t.String(),
              blobs: t.Optional(
                t.Array(t.Union([t.String(), t.Number(), t.Null()]), {
                  description:
                    "blob1…blob5 as stored: for a rival DHCP server its interface and addresses, for a shed query log the rows dropped (left out when all are empty, and in Pi-hole compatibility mode)",
                  "x-moat-only": true,
                }),
              ),
            }),
          ),
        }),
        detail: { tags: ["Info"], summary: "Warnings Moat raised (failed list downloads, rate-limited clients, …)" },
      },
    )
    .get("/info/messages/count", () => ({ count: messages.count() }), {
      response: t.Object({ count: t.Integer() }),
      detail: { tags: ["Info"], summary: "Number of messages" },
    })
    .delete(
      "/info/messages/:message_id",
      ({ params }) => {
        const ids = params.message_id.split(",").map((x) => x.trim());
        if (!ids.length || ids.some((x) => !/^\d+$/.test(x)))
          throw new ApiError(400, "uri_error", "Specify ID of message to delete in path", params.message_id);
        if (!messages.delete(ids.map(Number))) throw Errors.notFound(`/api/info/messages/${params.message_id}`);
        return undefined;
      },
      {
        params: t.Object({ message_id: t.String() }),
        detail: { tags: ["Info"], summary: "Delete messages by id (comma-separated)" },
      },
    );
}
