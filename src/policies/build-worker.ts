// The filter's build worker (src/filter/build-serve.ts) with the registry's policies: its entry lives here, as
// the filter may not import the policies.
import { serveBuilds } from "../filter/build-serve.ts";
import { POLICIES } from "./registry.ts";

serveBuilds(POLICIES.list);
