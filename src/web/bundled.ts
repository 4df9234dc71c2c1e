// The dashboard's files, bundled at compile time (see bundle.ts). Imported lazily by assets.ts.
import { uiBundle } from "./bundle.ts" with { type: "macro" };

export const files = uiBundle();
